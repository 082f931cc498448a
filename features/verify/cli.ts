/**
 * `runtimectl verify [--state-dir DIR] [--json]`: checks every persona under the state
 * directory and says, for anything wrong, which file, where in it, and what. Read-only: a
 * torn tail is reported as a warning and left for the next open to repair.
 *
 * Each check is a VerifyCheck in VERIFY_CHECKS; the event-log hash chain is the first, then
 * the persistence backend and the ledger's consistency (features/verify). STATE_VERIFY_CHECKS
 * run once per state directory: the digests of manifests and bundles (substrate.json).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { parseFlags, printJson, type CliIo, type Command } from '../../kernel/cli/command.ts';
import { ledgerCheck, persistenceCheck, substrateCheck } from './checks.ts';
import { eventChainCheck, traceCheck } from './history-checks.ts';
import { readVerifiedRecord, writeVerifiedRecord } from './verified-record.ts';
import { proposalsVerifyCheck } from '../review/verify-check.ts';
import { existingStateDir } from '../../kernel/storage/state-dir.ts';

const USAGE = `Usage: runtimectl verify [--full | --deep] [--state-dir DIR] [--json]

Checks every persona folder under the state directory: the event log's hash chain, in the
backend its persistence.yaml names (JSON per record, schema, version, seq with no gaps, each
prev matching the hash before it, each hash matching its event), across its sealed segments
(each one's digest against the header that follows it, its index entry and rollup); the
cycle trace's segments; its persistence.yaml; its local task ledger's consistency; its
proposal log. Once for the state directory: every plugin manifest loads, and no manifest or
bundle changed since substrate.json was recorded (at loop start). A torn last line is a warning.

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
  --full            read every segment and check every chain link; report the throughput
  --deep            --full, and parse every sealed record and recompute every rollup
  --state-dir DIR   default: $SCIDEX_AGENT_STATE_DIR, else ./state
  --json            print one JSON document: {ok, stateDir, state: [checks], personas: [{id, ok, checks}]}

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

/** Folders under the state directory that are not personas. */
export const NON_PERSONA_DIRS: ReadonlySet<string> = new Set(['workspaces']);

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

export function listPersonaIds(stateDir: string): string[] {
  return readdirSync(stateDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !NON_PERSONA_DIRS.has(entry.name))
    .map((entry) => entry.name)
    .sort();
}

/**
 * Runs every check on every persona. A check that throws is reported as a failure of that
 * check for that persona, and the rest still run.
 */
export async function verifyStateDir(
  stateDir: string,
  checks: readonly VerifyCheck[] = VERIFY_CHECKS,
  stateChecks: readonly StateVerifyCheck[] = STATE_VERIFY_CHECKS,
  options: { mode?: 'full' | 'incremental'; deep?: boolean } = {},
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
  for (const id of listPersonaIds(stateDir)) {
    const personaDir = path.join(stateDir, id);
    const mode = options.mode ?? 'incremental';
    const target: VerifyTarget = { stateDir, personaId: id, personaDir, mode, ...(options.deep ? { deep: true } : {}), ...(mode === 'incremental' ? { since: readVerifiedRecord(personaDir) } : {}) };
    const results: PersonaVerification['checks'] = [];
    for (const check of checks) {
      try {
        results.push({ name: check.name, ...(await check.run(target)) });
      } catch (error) {
        const what = `the ${check.name} check could not run: ${error instanceof Error ? error.message : String(error)}`;
        results.push({ name: check.name, status: 'failed', summary: 'check failed', findings: [{ severity: 'error', file: target.personaDir, what }] });
      }
    }
    const ok = results.every((r) => r.status !== 'failed');
    // Only a persona that verified records what the next incremental run may skip.
    const kept = Object.fromEntries(results.filter((r) => r.keep !== undefined).map((r) => [r.name, r.keep]));
    if (ok && Object.keys(kept).length > 0) writeVerifiedRecord(personaDir, kept);
    personas.push({ id, ok, checks: results.map(({ keep: _keep, ...rest }) => rest) });
  }
  return { ok: personas.every((p) => p.ok) && state.every((c) => c.status !== 'failed'), stateDir, state, personas };
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
  const { values } = parseFlags(argv, { 'state-dir': { type: 'string' }, full: { type: 'boolean' }, deep: { type: 'boolean' }, json: { type: 'boolean' } }, 'verify', false);
  const { given, stateDir } = existingStateDir(values['state-dir'], io.env, io.cwd);
  const report = await verifyStateDir(stateDir, VERIFY_CHECKS, STATE_VERIFY_CHECKS, { mode: values.full || values.deep ? 'full' : 'incremental', ...(values.deep ? { deep: true } : {}) });

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
    if (report.personas.length === 0) io.stdout(`no personas under ${given}\n`);
    else if (failed === 0) io.stdout(`verify: ${report.personas.length} persona(s) intact\n`);
    else io.stdout(`verify: ${failed} of ${report.personas.length} persona(s) failed\n`);
    const stateFailed = report.state.filter((c) => c.status === 'failed').map((c) => c.name);
    if (stateFailed.length > 0) io.stdout(`verify: state directory check(s) failed: ${stateFailed.join(', ')}\n`);
  }
  return report.ok ? 0 : 1;
}


export const verifyCommand: Command = {
  path: ['verify'],
  summary: "check every persona's event-log hash chain (incremental; --full reads every segment)",
  usage: USAGE,
  run,
};
