/**
 * Moving a persona's ledger from one format to the other in its own place.
 *
 * Both persistence backends keep the ledger at the path its config.yaml names (executors
 * are pointed at it through ORCHESTRA_DB), so an export within one persona cannot leave a
 * second copy beside the first: the ledger is rebuilt in the target format in a new file
 * next to it, checked (its export equals the source's), and swapped in with one rename. The
 * old file stays beside it as `orchestra.db.<old-format>` (hard link, made before the rename,
 * so the ledger's path always names a complete ledger): evidence is never deleted.
 */
import { existsSync, linkSync, rmSync, statSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { syncDirectory } from '../../kernel/storage/durable-files.ts';
import { openPluginLedger } from './plugin-host.ts';
import type { LedgerRowsBackend } from './open.ts';
import { detectLedgerFormat } from './format.ts';
import type { LedgerExport } from '../../plugins/ledger/model/records.ts';
import type { LedgerBackend } from '../../plugins/ledger/model/repo.ts';
import { renameSync } from 'node:fs';

export interface LedgerConversion {
  /** The ledger file (absolute). */
  file: string;
  /** Name of the old file kept beside it. */
  savedAs: string;
}

function nonEmptyFile(file: string): boolean {
  try {
    return statSync(file).size > 0;
  } catch {
    return false;
  }
}

function freeName(file: string, suffix: string): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? `${file}.${suffix}` : `${file}.${suffix}.${n}`;
    if (!existsSync(candidate)) return candidate;
  }
}

/** The persona and the backend (of the target format) the new copy is written through. */
export interface ConversionTarget {
  backend: LedgerRowsBackend;
  personaDir: string;
  personaId: string;
}

export function convertLedgerInPlace(dbFile: string, displayName: string, doc: LedgerExport, from: LedgerBackend, to: LedgerBackend, target: ConversionTarget): LedgerConversion {
  const found = detectLedgerFormat(dbFile);
  if (found !== from) {
    throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', `${displayName} is a ${found} ledger, not ${from}; nothing was converted`, { details: { file: displayName } });
  }
  if (from === 'sqlite' && nonEmptyFile(`${dbFile}-wal`)) {
    throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', `${displayName} has uncheckpointed writes (${path.basename(dbFile)}-wal): another process has the ledger open; stop the persona first`, {
      details: { file: displayName },
    });
  }
  const partial = `${dbFile}.${to}.partial`;
  // A partial file is only ever left by a conversion that never swapped it in.
  for (const leftover of [partial, `${partial}-wal`, `${partial}-shm`, `${partial}.lock`]) rmSync(leftover, { force: true });
  const partialRel = path.relative(target.personaDir, partial);
  const store = openPluginLedger({
    personaId: target.personaId,
    personaDir: target.personaDir,
    readonly: false,
    backend: to,
    file: partial,
    rows: {
      db: partialRel,
      load: (args) => target.backend.callPluginSync('ledgerLoad', args),
      commit: (args) => target.backend.callPluginSync('ledgerCommit', args),
    },
    // The copy's connection is closed with the store, before the copy is renamed into place.
    onClose: () => target.backend.releaseFile?.(partialRel),
  });
  try {
    store.importLedger(doc);
    if (!isDeepStrictEqual(store.exportLedger(), doc)) {
      throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', `${displayName}: the ${to} copy of the ledger does not read back equal to the ${from} original; nothing was swapped`, {
        details: { file: displayName },
      });
    }
  } catch (error) {
    store.close();
    rmSync(partial, { force: true });
    throw error;
  }
  store.close();
  const saved = freeName(dbFile, from);
  linkSync(dbFile, saved);
  renameSync(partial, dbFile);
  syncDirectory(path.dirname(dbFile));
  for (const sidecar of [`${partial}-wal`, `${partial}-shm`, `${partial}.lock`]) rmSync(sidecar, { force: true });
  return { file: dbFile, savedAs: path.basename(saved) };
}
