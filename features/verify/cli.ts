/**
 * `runtimectl verify [--state-dir DIR | --dsn DSN] [--plugins-dir DIR]... [--json]`: checks
 * every persona under the state directory (or, with --dsn alone, every persona kept in that
 * shared Postgres database) and says, for anything wrong, which file, where in it, and what.
 * Read-only: a torn tail is reported as a warning and left for the next open to repair.
 *
 * Each check is a VerifyCheck in VERIFY_CHECKS; the event-log hash chain is the first, then
 * the persistence backend and the ledger's consistency (features/verify). STATE_VERIFY_CHECKS
 * run once per state directory: the digests of manifests and bundles (substrate.json). Every
 * check of a persona reads its state through one read-only opening of its configured backend
 * (target.backend), on the plugin search path `run` uses (the built-in plugins/,
 * RUNTIMECTL_PLUGIN_PATH, --plugins-dir) and the database --dsn or RUNTIMECTL_POSTGRES_DSN names.
 */
import { listPersonaIds } from '../persistence/state-dir.ts';
import path from 'node:path';
import { parseFlags, printJson, type CliIo, type Command } from '../command/command.ts';
import { isKernelError, kernelError } from '../../kernel/errors.ts';
import { describeDsn } from '../persistence/storage/postgres/pg-bridge.ts';
import type { PluginRegistry } from '../../kernel/plugins/registry.ts';
import { pluginSearchPath, scanRegistry } from '../plugin-search/scan.ts';
import { ledgerCheck, persistenceCheck, substrateCheck } from './checks.ts';
import { eventChainCheck, traceCheck } from './history-checks.ts';
import { readVerifiedRecord, writeVerifiedRecord } from './verified-record.ts';
import { proposalsVerifyCheck } from './review-check.ts';
import { openBackend } from '../persistence/open.ts';
import { openShared, sharedPersonas, viewFolder } from '../persistence/fleet.ts';
import type { PersonaBackend } from '../persistence/backend.ts';
import { existingPersonaDir, existingStateDir } from '../persistence/state/state-dir.ts';
import { didYouMean } from '../profiles/suggest.ts';

const USAGE = `Usage: runtimectl verify [--full | --deep] [--state-dir DIR | --dsn DSN] [--persona ID]
                        [--plugins-dir DIR]... [--json]

Checks every persona folder under the state directory: the event log's hash chain, in the
backend its persistence.yaml names (JSON per record, schema, version, seq with no gaps, each
prev matching the hash before it, each hash matching its event), across its sealed segments
(each one's digest against the header that follows it, its index entry and rollup) and its
checkpoint; the cycle trace (every record's hash, its segments, and the trace record of every
cycle event checked); its persistence.yaml; its local task ledger's consistency; its proposal
log. Once for the state directory: every plugin manifest loads, and no manifest or bundle
changed since substrate.json was recorded (at loop start). A torn last line is a warning.

Plugins are found as "run" finds them: the built-in plugins/, then $RUNTIMECTL_PLUGIN_PATH
(folders separated by ":"), then each --plugins-dir. A plugin a run found in an outside folder
is recorded with that folder; verify names the folder when it is not on this search path.

A persona kept in Postgres is read from the database --dsn names (else
$RUNTIMECTL_POSTGRES_DSN). With --dsn and no --state-dir, every persona kept in that shared
database is verified, read-only, without a state directory: its events, checkpoint, trace and
proposals (the ledger's config and the proposal blobs are files of the persona folder: verify
those with --state-dir).

By default the check is incremental: sealed segments unchanged since the last verification
(same stored identity: inode, size, ctime) are not read again; everything after them and
the open segment are checked record by record, and the report says how far back it looked.
Each persona's last successful verification is kept in <persona>/logs/verified.json (the
only file verify writes; a read-only state directory is verified all the same).

A sealed segment is checked against the digest the chain records for it, every record's
hash over its stored text and every link (each record was parsed and checked when the
segment was sealed, and the digest pins those bytes); --deep parses every record again and
recomputes every segment's rollup.

Options:
  --full             read every segment and check every chain link; report the throughput
  --deep             --full, and parse every sealed record and recompute every rollup
  --state-dir DIR    default: $SCIDEX_AGENT_STATE_DIR, else ./state
  --dsn DSN          the shared Postgres database of the personas kept there; without
                     --state-dir: verify every persona of that database
  --persona ID       only this persona
  --plugins-dir DIR  another folder of plugins (repeatable), as for run
  --json             one JSON document: {ok, stateDir, database?, state: [checks], personas: [{id, ok, checks}]}

Exit status: 0 when everything is intact, 1 when any check found an error.
`;

/** One persona folder being verified. */
export interface VerifyTarget {
  stateDir: string;
  personaId: string;
  personaDir: string;
  /** incremental (the default): skip what the last verification saw unchanged; full: read everything */
  mode?: 'full' | 'incremental';
  /** what the last verification of this persona kept (logs/verified.json), by check name */
  since?: Record<string, unknown>;
  /** also parse every sealed record again and recompute every rollup (--deep) */
  deep?: boolean;
  /** the plugins of this verification's search path (default: the built-in plugins/ alone) */
  registry?: PluginRegistry;
  /** the shared database of a persona kept in Postgres (--dsn, else RUNTIMECTL_POSTGRES_DSN) */
  dsn?: string;
  /**
   * The persona's state in its configured backend, opened read-only on first use and shared
   * by every check (closed when the persona is done). Without it a check opens its own.
   */
  backend?: () => Promise<PersonaBackend>;
  /** a persona read from a shared database alone (verify --dsn): its folder does not exist */
  fleet?: boolean;
}

export interface VerifyFinding {
  severity: 'error' | 'warning';
  /** Absolute path of the file at fault. */
  file: string;
  /** 1-based line, when the file is line-based. */
  line?: number;
  /** Event sequence number (or another record's position), when known. */
  seq?: number;
  /** Error code, e.g. RTC_ERR_EVENTS_CHAIN. */
  code?: string;
  what: string;
}

export interface VerifyCheckResult {
  /** `absent`: nothing to check here (e.g. a persona that never ran has no event log). */
  status: 'ok' | 'failed' | 'absent';
  /** A few words for the text report, e.g. "120 events, last seq 120". */
  summary: string;
  findings: VerifyFinding[];
  /** What the next incremental verification may skip (kept in logs/verified.json when the persona verifies). */
  keep?: unknown;
  /** Figures for --json (records checked, throughput, how far back it looked). */
  details?: Record<string, unknown>;
}

export interface VerifyCheck {
  /** Short name shown in the report: `events`, `manifests`, `ledger`. */
  name: string;
  run(target: VerifyTarget): VerifyCheckResult | Promise<VerifyCheckResult>;
}

/** Every check run for every persona, in report order. */
export const VERIFY_CHECKS: VerifyCheck[] = [eventChainCheck, traceCheck, persistenceCheck, ledgerCheck, proposalsVerifyCheck];

/** A check of the state directory as a whole (run once, before the personas): the substrate record. */
export interface StateVerifyCheck {
  name: string;
  run(stateDir: string): VerifyCheckResult | Promise<VerifyCheckResult>;
}

export const STATE_VERIFY_CHECKS: StateVerifyCheck[] = [substrateCheck()];

export interface PersonaVerification {
  id: string;
  ok: boolean;
  checks: (VerifyCheckResult & { name: string })[];
}

export interface VerifyReport {
  ok: boolean;
  stateDir: string;
  /** Checks of the state directory itself (substrate.json). */
  state: (VerifyCheckResult & { name: string })[];
  personas: PersonaVerification[];
}

export interface VerifyOptions {
  mode?: 'full' | 'incremental';
  deep?: boolean;
  /** the plugin search path's registry (backends are found there) */
  registry?: PluginRegistry;
  dsn?: string;
  /** only these personas */
  personas?: readonly string[];
}

/** The persona's backend could not be opened: the first check that needed it reports why, the others say they were not run. */
class BackendUnopened extends Error {
  readonly reported = { done: false };
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

/** Opens the backend once, on first use; `close` releases it when it was opened. */
function lazyBackend(open: () => Promise<PersonaBackend>): { get: () => Promise<PersonaBackend>; close: () => Promise<void> } {
  let opening: Promise<PersonaBackend> | undefined;
  return {
    get: () =>
      (opening ??= open().catch((error: unknown) => {
        throw new BackendUnopened(error);
      })),
    close: async () => {
      if (opening === undefined) return;
      try {
        await (await opening).close();
      } catch {
        // it never opened: the check that asked reported why
      }
    },
  };
}

/** Every check of one persona; a check that throws is a failure of that check, and the rest still run. */
async function verifyPersona(target: VerifyTarget, checks: readonly VerifyCheck[], close: () => Promise<void>): Promise<PersonaVerification> {
  const results: PersonaVerification['checks'] = [];
  try {
    for (const check of checks) {
      try {
        results.push({ name: check.name, ...(await check.run(target)) });
      } catch (error) {
        if (error instanceof BackendUnopened && error.reported.done) {
          results.push({ name: check.name, status: 'failed', summary: 'not checked: the persistence backend could not be opened (see above)', findings: [] });
          continue;
        }
        if (error instanceof BackendUnopened) error.reported.done = true;
        const cause = error instanceof BackendUnopened ? error.reason : error;
        const what = `the ${check.name} check could not run: ${error instanceof Error ? error.message : String(error)}`;
        results.push({ name: check.name, status: 'failed', summary: 'check failed', findings: [{ severity: 'error', file: target.personaDir, ...(isKernelError(cause) ? { code: cause.code } : {}), what }] });
      }
    }
  } finally {
    await close();
  }
  const ok = results.every((r) => r.status !== 'failed');
  // Only a persona that verified records what the next incremental run may skip (never one without a folder).
  const kept = Object.fromEntries(results.filter((r) => r.keep !== undefined).map((r) => [r.name, r.keep]));
  if (ok && !target.fleet && Object.keys(kept).length > 0) writeVerifiedRecord(target.personaDir, kept);
  return { id: target.personaId, ok, checks: results.map(({ keep: _keep, ...rest }) => rest) };
}

/**
 * Runs every check on every persona. A check that throws is reported as a failure of that
 * check for that persona, and the rest still run.
 */
export async function verifyStateDir(
  stateDir: string,
  checks: readonly VerifyCheck[] = VERIFY_CHECKS,
  stateChecks: readonly StateVerifyCheck[] = STATE_VERIFY_CHECKS,
  options: VerifyOptions = {},
): Promise<VerifyReport> {
  const state: VerifyReport['state'] = [];
  for (const check of stateChecks) {
    try {
      state.push({ name: check.name, ...(await check.run(stateDir)) });
    } catch (error) {
      const what = `the ${check.name} check could not run: ${error instanceof Error ? error.message : String(error)}`;
      state.push({ name: check.name, status: 'failed', summary: 'check failed', findings: [{ severity: 'error', file: stateDir, what }] });
    }
  }
  const personas: PersonaVerification[] = [];
  for (const id of options.personas ?? listPersonaIds(stateDir)) {
    const personaDir = path.join(stateDir, id);
    const mode = options.mode ?? 'incremental';
    const backend = lazyBackend(() => openBackend(personaDir, undefined, { readonly: true, personaId: id, ...(options.registry ? { registry: options.registry } : {}), ...(options.dsn ? { dsn: options.dsn } : {}) }));
    const target: VerifyTarget = {
      stateDir,
      personaId: id,
      personaDir,
      mode,
      backend: backend.get,
      ...(options.deep ? { deep: true } : {}),
      ...(options.registry ? { registry: options.registry } : {}),
      ...(options.dsn ? { dsn: options.dsn } : {}),
      ...(mode === 'incremental' ? { since: readVerifiedRecord(personaDir) } : {}),
    };
    personas.push(await verifyPersona(target, checks, backend.close));
  }
  return { ok: personas.every((p) => p.ok) && state.every((c) => c.status !== 'failed'), stateDir, state, personas };
}

/**
 * Every persona kept in a shared Postgres database (verify --dsn without a state directory),
 * read-only through the postgres backend as status --dsn reads them. Always a full check: no
 * folder keeps what an earlier verification saw.
 */
export async function verifyDatabase(dsn: string, checks: readonly VerifyCheck[] = VERIFY_CHECKS, options: Omit<VerifyOptions, 'dsn'> = {}): Promise<VerifyReport & { database: string }> {
  const personas: PersonaVerification[] = [];
  for (const id of options.personas ?? (await sharedPersonas(dsn))) {
    const backend = lazyBackend(() => openShared(dsn, id));
    const target: VerifyTarget = { stateDir: '', personaId: id, personaDir: viewFolder(id), mode: 'full', backend: backend.get, dsn, fleet: true, ...(options.deep ? { deep: true } : {}), ...(options.registry ? { registry: options.registry } : {}) };
    personas.push(await verifyPersona(target, checks, backend.close));
  }
  return { ok: personas.every((p) => p.ok), stateDir: '', database: describeDsn(dsn), state: [], personas };
}

/** `file:line (seq N): what`, with the file relative to the working directory when it is inside it. */
export function formatFinding(finding: VerifyFinding, cwd: string): string {
  const relative = path.relative(cwd, finding.file);
  const file = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : finding.file;
  const line = finding.line === undefined ? '' : `:${finding.line}`;
  const seq = finding.seq === undefined ? '' : ` (seq ${finding.seq})`;
  return `${finding.severity}: ${file}${line}${seq}: ${finding.what}`;
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(
    argv,
    {
      'state-dir': { type: 'string' },
      dsn: { type: 'string' },
      persona: { type: 'string' },
      'plugins-dir': { type: 'string', multiple: true },
      full: { type: 'boolean' },
      deep: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    'verify',
    false,
  );
  // The search path run uses: a plugin from an outside folder is checked where it is.
  const registry = scanRegistry(pluginSearchPath({ env: io.env, dirs: values['plugins-dir'] ?? [], cwd: io.cwd }));
  const mode: 'full' | 'incremental' = values.full || values.deep ? 'full' : 'incremental';
  const common = { mode, registry, ...(values.deep ? { deep: true } : {}) };
  let report: VerifyReport & { database?: string };
  let where: string;
  if (values.dsn !== undefined && values['state-dir'] === undefined) {
    // A shared database alone: every persona kept there (as status --dsn).
    if (values.dsn === '') throw kernelError('RTC_ERR_CLI_USAGE', "--dsn: give the database's DSN (postgres://USER:PASSWORD@HOST/DB)");
    let personas: string[] | undefined;
    if (values.persona !== undefined) {
      const known = await sharedPersonas(values.dsn);
      if (!known.includes(values.persona)) {
        throw kernelError('RTC_ERR_PERSONA_NOT_FOUND', `persona ${values.persona}${didYouMean(values.persona, known)} has no state in ${describeDsn(values.dsn)}`, { details: { persona: values.persona, known } });
      }
      personas = [values.persona];
    }
    const database = await verifyDatabase(values.dsn, VERIFY_CHECKS, { ...common, ...(personas ? { personas } : {}) });
    report = database;
    where = database.database;
  } else {
    const choice = existingStateDir(values['state-dir'], io.env, io.cwd);
    if (values.persona !== undefined) existingPersonaDir(choice, values.persona, 'verify');
    const dsn = values.dsn ?? io.env.RUNTIMECTL_POSTGRES_DSN;
    report = await verifyStateDir(choice.stateDir, VERIFY_CHECKS, [substrateCheck({ registry })], { ...common, ...(dsn ? { dsn } : {}), ...(values.persona !== undefined ? { personas: [values.persona] } : {}) });
    where = choice.given;
  }

  if (values.json) {
    printJson(io, report);
  } else {
    for (const check of report.state) {
      io.stdout(`(state)  ${check.name}  ${check.status === 'failed' ? 'FAILED' : check.status}  ${check.summary}\n`);
      for (const finding of check.findings) io.stdout(`  ${formatFinding(finding, io.cwd)}\n`);
    }
    for (const persona of report.personas) {
      for (const check of persona.checks) {
        const status = check.status === 'failed' ? 'FAILED' : check.status;
        io.stdout(`${persona.id}  ${check.name}  ${status}  ${check.summary}\n`);
        for (const finding of check.findings) io.stdout(`  ${formatFinding(finding, io.cwd)}\n`);
      }
    }
    const failed = report.personas.filter((p) => !p.ok).length;
    if (report.personas.length === 0) io.stdout(`no personas ${report.database ? 'in' : 'under'} ${where}\n`);
    else if (failed === 0) io.stdout(`verify: ${report.personas.length} persona(s) intact\n`);
    else io.stdout(`verify: ${failed} of ${report.personas.length} persona(s) failed\n`);
    const stateFailed = report.state.filter((c) => c.status === 'failed').map((c) => c.name);
    if (stateFailed.length > 0) io.stdout(`verify: state directory check(s) failed: ${stateFailed.join(', ')}\n`);
  }
  return report.ok ? 0 : 1;
}


export const verifyCommand: Command = {
  path: ['verify'],
  summary: "check every persona's history, trace, ledger and proposals, and the plugins recorded (incremental; --full reads every segment)",
  usage: USAGE,
  run,
};
