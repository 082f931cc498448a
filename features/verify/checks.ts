/**
 * The checks this folder adds to `runtimectl verify` (registered in
 * features/verify/cli.ts):
 *
 *   persistence  per persona: persistence.yaml parses and names an installed backend; a
 *                persistence.db the configured backend does not use has an intact event chain
 *                (the configured backend's chain is the events check's, history-checks.ts)
 *   ledger       per persona: checkLedgerConsistency (features/ledger), read-only
 *   substrate    once per state directory: every plugin manifest loads, and no manifest or
 *                bundle changed since `recordSubstrate` wrote substrate.json
 *
 * All read-only. (sqlite's read-only handles may leave the -wal/-shm sidecars a WAL database
 * uses; the database file itself is never written.)
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { StateVerifyCheck, VerifyCheck, VerifyCheckResult, VerifyFinding } from './cli.ts';
import { errorLine, isKernelError } from '../../kernel/errors.ts';
import { checkLedgerConsistency } from '../ledger/consistency.ts';
import { prepareLedger } from '../ledger/open.ts';
import { LEDGER_DIR } from '../ledger/config.ts';
import { detectLedgerFormat } from '../ledger/format.ts';
import { locateLedger } from '../ledger/layout.ts';
import { ledgerOf } from '../ledger/access.ts';
import { PERSISTENCE_CONFIG_FILE, readPersistenceConfig } from '../persistence/state/persistence-config.ts';
import { findPersistencePlugin, openBackend } from '../persistence/open.ts';
import { PLUGINS_DIR } from '../plugin-search/scan.ts';
import { compareSubstrate, currentSubstrate, readSubstrate, SUBSTRATE_FILE, type SubstrateChange, type SubstrateOptions } from '../substrate/substrate.ts';
import { defaultModuleLoader } from '../../sandboxes/index.ts';

export const ledgerCheck: VerifyCheck = {
  name: 'ledger',
  async run(target): Promise<VerifyCheckResult> {
    if (target.fleet) return { status: 'absent', summary: "not checked: the ledger's config.yaml is a file of the persona folder (verify with --state-dir)", findings: [] };
    if (!existsSync(path.join(target.personaDir, LEDGER_DIR))) return { status: 'absent', summary: 'no ledger', findings: [] };
    await prepareLedger();
    // The ledger is where openLedger finds it: a file in its format (jsonl-fs or sqlite, whatever
    // the backend) when config.yaml's path holds one, else the rows of a backend that keeps
    // them (postgres), read through that backend.
    const location = locateLedger(target.personaDir, target.personaId);
    const file = location ? detectLedgerFormat(location.dbFile) : 'missing';
    const rows = (file === 'missing' || file === 'empty') && target.backend ? await target.backend() : undefined;
    const problems = rows && rows.ledgerFormat === 'postgres' ? ledgerOf(rows).check() : checkLedgerConsistency(target.personaDir, undefined, target.personaId);
    const findings: VerifyFinding[] = problems.map((p) => {
      const line = /^line (\d+)$/.exec(p.position);
      return {
        severity: 'error',
        file: path.join(target.personaDir, p.file),
        ...(line ? { line: Number(line[1]) } : {}),
        code: 'RTC_ERR_LEDGER_CORRUPT',
        what: line ? p.problem : `${p.position}: ${p.problem}`,
      };
    });
    return { status: findings.length > 0 ? 'failed' : 'ok', summary: findings.length > 0 ? `${findings.length} problem(s)` : 'consistent', findings };
  },
};

export const persistenceCheck: VerifyCheck = {
  name: 'persistence',
  async run(target): Promise<VerifyCheckResult> {
    if (target.fleet) return { status: 'ok', summary: 'postgres (the shared database)', findings: [] };
    const configFile = path.join(target.personaDir, PERSISTENCE_CONFIG_FILE);
    const dbFile = path.join(target.personaDir, 'persistence.db');
    if (!existsSync(configFile) && !existsSync(dbFile)) return { status: 'absent', summary: 'jsonl-fs (default)', findings: [] };
    const findings: VerifyFinding[] = [];
    let configured = '?';
    try {
      configured = readPersistenceConfig(target.personaDir).backend;
      findPersistencePlugin(configured, target.registry);
    } catch (error) {
      findings.push({ severity: 'error', file: configFile, ...(isKernelError(error) ? { code: error.code } : {}), what: errorLine(error) });
    }
    let summary = `${configured}`;
    // The configured backend's events are the events check's; a persistence.db another
    // backend left behind (a switch back to jsonl-fs) is still checked here.
    if (existsSync(dbFile) && configured !== 'sqlite') {
      try {
        const backend = await openBackend(target.personaDir, 'sqlite', { readonly: true, personaId: target.personaId, ...(target.registry ? { registry: target.registry } : {}) });
        try {
          const report = backend.events.verify();
          summary += `; persistence.db: ${report.events} event(s), last seq ${report.lastSeq}`;
          for (const p of report.problems) findings.push({ severity: p.severity, file: p.file, ...(p.seq === undefined ? {} : { seq: p.seq }), code: p.code, what: p.what });
        } finally {
          await backend.close();
        }
      } catch (error) {
        findings.push({ severity: 'error', file: dbFile, ...(isKernelError(error) ? { code: error.code } : {}), what: errorLine(error) });
      }
    }
    return { status: findings.some((f) => f.severity === 'error') ? 'failed' : 'ok', summary, findings };
  },
};

/**
 * Where a substrate change is on disk: a plugin of the built-in folder under it, one of an
 * outside folder under that folder (the record's key is `<outside folder's name>/<plugin folder>`).
 */
function changeFile(change: SubstrateChange, builtIn: string): string {
  // an old record's outside plugin: only the folder's name is known
  if (change.source === undefined && change.kind === 'off-path') return change.file;
  if (change.source === undefined) return path.join(builtIn, change.file);
  return path.join(change.source, change.file.split('/').slice(1).join('/'));
}

/**
 * The substrate check on a plugin search path: `registry` (verify's: the built-in folder,
 * RUNTIMECTL_PLUGIN_PATH, --plugins-dir), else one plugins folder (tests pass their own).
 */
export function substrateCheck(options: Partial<SubstrateOptions> = {}): StateVerifyCheck {
  const builtIn = options.registry?.roots[0] ?? options.pluginsDir ?? PLUGINS_DIR;
  return {
    name: 'substrate',
    async run(stateDir): Promise<VerifyCheckResult> {
      const file = path.join(stateDir, SUBSTRATE_FILE);
      let recorded;
      try {
        recorded = readSubstrate(stateDir);
      } catch (error) {
        return { status: 'failed', summary: `${SUBSTRATE_FILE} is unreadable`, findings: [{ severity: 'error', file, code: 'RTC_ERR_SUBSTRATE_RECORD', what: errorLine(error) }] };
      }
      if (recorded === undefined) return { status: 'absent', summary: `no ${SUBSTRATE_FILE} (recorded when the loop starts)`, findings: [] };
      const current = await currentSubstrate({ ...options, loader: options.loader ?? defaultModuleLoader() });
      const findings: VerifyFinding[] = compareSubstrate(recorded, current).map((c) => ({
        severity: c.severity,
        file: changeFile(c, builtIn),
        ...(c.line === undefined ? {} : { line: c.line }),
        code: c.kind === 'off-path' ? 'RTC_ERR_SUBSTRATE_OFF_PATH' : 'RTC_ERR_SUBSTRATE_CHANGED',
        what: c.kind === 'off-path' ? `${c.what}: pass --plugins-dir ${c.source ?? 'FOLDER'} (or add it to RUNTIMECTL_PLUGIN_PATH), as the run that recorded it did` : c.what,
      }));
      const errors = findings.filter((f) => f.severity === 'error').length;
      const offPath = findings.filter((f) => f.code === 'RTC_ERR_SUBSTRATE_OFF_PATH').length;
      const count = Object.keys(current.plugins).length;
      const summary =
        errors === 0
          ? `${count} plugin(s) match the record of ${recorded.recorded_at}`
          : offPath === errors
            ? `${offPath} recorded plugin(s) in folder(s) not on this search path: not checked`
            : `${errors - offPath} change(s) since ${recorded.recorded_at}${offPath > 0 ? `; ${offPath} plugin(s) not on this search path` : ''}`;
      return { status: errors > 0 ? 'failed' : 'ok', summary, findings };
    },
  };
}
