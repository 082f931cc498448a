/**
 * `runtimectl run`: runs personas' continuous_science_loop cycles in this process, each on
 * its own cadence (or every --every seconds), for --cycles N or until a signal. A first
 * SIGINT ends the waits between cycles and lets the cycle in progress finish; SIGTERM (what
 * systemd, Kubernetes and `timeout` send) or a second SIGINT stops now: running executor
 * sessions get TERM, then KILL after half the --stop-grace, and are recorded `interrupted`
 * with the usage they printed so far, their work left pending. Logs are flushed and the exit
 * status is 0 after a clean stop; a kernel still not done at the grace exits 1.
 *
 * `runtimectl run --demo` is what `npm start` runs: the example (agent-*) personas on their
 * embedded profiles, a work packet in each inbox, a fresh state directory, three cycles
 * back to back with token-spending executors held back (--no-spend), then a summary of what
 * each persona did and why.
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readAgentEnv, STATE_DIR_ENV } from './budget/env.ts';
import { kernelError } from '../../kernel/errors.ts';
import { openLedger, prepareLedger } from '../ledger/open.ts';
import { HarnessCatalog } from '../profiles/harness-catalog.ts';
import { openPersonas, runFailed, type CycleWait } from './run-personas.ts';
import { inProcessFleet, type LoopFleet } from './workers/fleet.ts';
import { parseWorkers, startWorkerFleet, WORKERS_USAGE } from './workers/cli-hook.ts';
import { cycleLine, personaSummary } from './summary.ts';
import { listPersonaIds, loadPersonas, PERSONAS_DIR, resolvePersonas, type PersonaLoadFailure } from '../profiles/load.ts';
import type { LoadedPersona } from '../../kernel/personas/profile-schema.ts';
import { openLoopKernel } from './preset.ts';
import { harnessToolServer } from '../mcp/harness-server.ts';
import { ChildRegistry } from './executors/children.ts';
import { withDsnContext } from '../persistence/dsn.ts';
import { skillSearchPath } from '../skills/search-path.ts';
import { scienceReport, type ScienceCycleReport as CycleReport, type ScienceRun } from './report.ts';
import { hint, parseFlags, type CliIo, type Command } from '../command/command.ts';
import { chooseStateDir, ensureStateDir, makeDirectories } from '../persistence/state/state-dir.ts';
import { resolveStateDir } from '../persistence/state-dir.ts';
import { scrubber } from '../secret-values/secret-values.ts';

const USAGE = `Usage: runtimectl run --persona ID_OR_FILE... [--cycles N] [--state-dir DIR] [--dsn DSN] [options]
       runtimectl run --demo [--cycles N] [--state-dir DIR]

Runs the continuous_science_loop for each persona, side by side in this process. Without
--cycles it runs until a signal: a first SIGINT lets the cycle in progress finish; SIGTERM or
a second SIGINT stops now (running sessions get TERM, then KILL after half the grace, and
are recorded as interrupted with their work left pending). Logs are flushed, and the exit
status is 0 after a clean stop.

Options:
  --persona ID_OR_FILE  a profile id (policies/personas/ID.yaml) or a YAML file; repeatable,
                        and further ids may follow it
  --cycles N            cycles per persona, then stop
  --state-dir DIR       where personas keep their files (default: $${STATE_DIR_ENV}, else ./state)
  --every SECONDS       seconds between cycles for every persona (default: each profile's cadence)
  --no-spend            never launch token-spending executors (the budget policy still decides)
  --max-isolates N      plugin isolates kept alive across all personas (default 384); the least
                        recently used beyond it are released and rebuilt on their next call
  --plugins-dir DIR     another folder of plugins (repeatable; after $RUNTIMECTL_PLUGIN_PATH,
                        which is a :-separated list of such folders, and the built-in plugins/)
  --skills-dir DIR      another folder of skills (repeatable; after $RUNTIMECTL_SKILLS_PATH, a
                        :-separated list of such folders, and the built-in skills/)
  --dsn DSN             the Postgres database of personas kept in persistence.postgres: over
                        each profile's own (persistence: {plugin, dsn_env | dsn}), which is
                        over $RUNTIMECTL_POSTGRES_DSN
  --stop-grace SECONDS  how long a stop on SIGTERM or a second SIGINT may take (default 20,
                        under Kubernetes' 30); sessions get KILL at half of it
${WORKERS_USAGE}
  --summary             after the run, print what each persona did and why
  --json                NDJSON instead of lines: one object per cycle as it ends
                        ({"type":"cycle",...}), one per wait between cycles
                        ({"type":"wait","persona_id","next_cycle","seconds","next_at",
                        "source"}), then one {"type":"run_end",...}
  --demo                the example agent-* personas with a work packet each, a fresh state
                        directory, 3 cycles back to back, --no-spend and --summary

Environment: SCIDEX_AGENT_DAILY_TOKEN_BUDGET, _MAX_TOKENS_PER_SESSION,
_MIN_TOKENS_REMAINING_FOR_EXECUTOR, _MAX_AUTONOMOUS_SESSIONS_PER_DAY, _CPU_SECONDS_PER_CYCLE,
_WALL_SECONDS_PER_CYCLE override every profile's budget; SCIDEX_AGENT_CONTINUOUS_EXECUTOR
(none|orchestra|codex|claude|command) and _ENABLED (0|1) override its executor. An invalid
value stops the start with the variable named.

A persona whose profile names something that cannot work (a missing plugin, a plugin of the
wrong kind, an export the bundle lacks, a harness step nobody provides, a token-spending
executor whose program is not on PATH, a skill pattern that matches nothing) does not start:
one line per problem names the persona, the file and the field; the other personas run. The
exit status is 1 when a persona did not start, stopped, or failed every one of its cycles.
`;

/** Seconds a stop (SIGTERM, a second SIGINT) may take: under Kubernetes' default grace of 30. */
export const DEFAULT_STOP_GRACE_SECONDS = 20;

/** --state-dir, else SCIDEX_AGENT_STATE_DIR, else ./state; relative to the command's cwd. */
function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(value)) throw kernelError('RTC_ERR_CLI_USAGE', `--${name} ${value}: must be a whole number above zero`);
  return Number(value);
}

function seconds(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(value)) throw kernelError('RTC_ERR_CLI_USAGE', `--${name} ${value}: must be a number of seconds, 0 or more`);
  return Number(value);
}

const DEMO_PACKET = `# Which assay best separates hypothesis A from hypothesis B?

A demo work packet. Two explanations fit the pilot data equally well; say which single
measurement would most change our belief, what it costs, and when to stop.
`;

/** The canonical (agent-*) profiles, each with one work packet in its inbox under a fresh state dir. */
function demoSetup(stateFlag: string | undefined, io: CliIo): { personas: LoadedPersona[]; stateDir: string } {
  const all = resolvePersonas(listPersonaIds(PERSONAS_DIR), { cwd: io.cwd });
  const harnesses = new HarnessCatalog();
  const personas = all.filter((p) => harnesses.forProfile(p.profile, p.file).manifest.runtime_kind === 'canonical');
  const stateDir = stateFlag ? path.resolve(io.cwd, stateFlag) : mkdtempSync(path.join(os.tmpdir(), 'runtimectl-demo-'));
  if (stateFlag) ensureStateDir(stateFlag, stateDir);
  for (const p of personas) {
    const inbox = path.join(stateDir, p.profile.id, 'inbox');
    makeDirectories(inbox);
    if (!existsSync(inbox) || readdirSync(inbox).length === 0) writeFileSync(path.join(inbox, 'demo-question.md'), DEMO_PACKET);
  }
  return { personas, stateDir };
}

function ledgerCounts(stateDir: string, personaId: string): Record<string, number> {
  try {
    const { store } = openLedger(path.join(stateDir, personaId), { readonly: true, personaId });
    try {
      const out: Record<string, number> = {};
      for (const t of store.listTasks()) out[t.state] = (out[t.state] ?? 0) + 1;
      return out;
    } finally {
      store.close();
    }
  } catch {
    return {};
  }
}

function jsonCycle(r: CycleReport): Record<string, unknown> {
  return {
    cycle: r.cycle,
    seq: r.seq,
    phase: r.phase,
    outcome: r.outcome,
    defer_reason: r.defer_reason,
    executor: r.executor,
    budget: { source: r.posture.source, token_budget: r.posture.token_budget, tokens_used_24h: r.posture.tokens_used_24h, read_only: r.posture.read_only },
    budget_decision: r.act.decision ? { action: r.act.decision.action, tier: r.act.decision.tier, expected_improvement: r.act.decision.expected_improvement } : null,
    session_manifest: r.act.session?.manifest_path ?? null,
    provider_usage: r.act.usage,
    tasks_created: r.act.tasks,
    review: reviewAtBoundary(r),
  };
}

/** What the cycle's event says of the review queue: applied and expired at its boundary, held (with why), proposed and refused during it, alerts. */
interface CycleReview {
  applied: string[];
  expired: string[];
  held: { id: string; reason: string }[];
  queued: string[];
  refused: number;
  alerts: { alert: string; message: string; proposal_log_seq: number }[];
}

/** `12 s`, `5 min`, `1 h 30 min`: a wait as people say it. */
export function spokenSeconds(seconds: number): string {
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${Math.round(seconds * 10) / 10} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const rest = minutes % 60;
  return `${Math.floor(minutes / 60)} h${rest ? ` ${rest} min` : ''}`;
}

/** The line `run` prints when a persona starts waiting for its next cycle. */
export function waitLine(w: CycleWait): string {
  const clock = w.next_at.slice(11, 19);
  const why = w.source === 'every' ? `--every ${w.seconds}` : `its profile's cadence.cycle_seconds: ${w.seconds}; --every S overrides it`;
  return `${w.persona_id}: next cycle (#${w.next_cycle}) in ${spokenSeconds(w.seconds)}, at ${clock} UTC (${why})`;
}

function reviewAtBoundary(r: CycleReport): CycleReview {
  const review = (r.payload.review ?? {}) as Record<string, unknown>;
  const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);
  return {
    applied: list<unknown>(review.applied).map(String),
    expired: list<unknown>(review.expired).map(String),
    held: list(review.held),
    queued: list<unknown>(review.queued).map(String),
    refused: typeof review.refused === 'number' ? review.refused : 0,
    alerts: list(review.alerts),
  };
}

/** What `run` prints about the review queue for a cycle, one line each: applications, expiries, held proposals, proposals made, every alert. */
export function reviewLines(r: CycleReport): string[] {
  const { applied, expired, held, queued, refused, alerts } = reviewAtBoundary(r);
  const who = `${r.persona_id} #${r.cycle}`;
  return [
    ...applied.map((id) => `${who}: applied accepted proposal ${id} at this cycle's boundary (runtimectl proposals show ${id})`),
    ...expired.map((id) => `${who}: proposal ${id} expired undecided`),
    ...held.map((h) => `${who}: HELD ${h.id}: ${h.reason}`),
    ...queued.map((id) => `${who}: proposed ${id}; it waits for an operator (runtimectl proposals show ${id})`),
    ...(refused > 0 ? [`${who}: ${refused} proposal(s) refused this cycle (runtimectl logs --persona ${r.persona_id})`] : []),
    ...alerts.map((a) => `${who}: ALERT ${a.alert}: ${a.message}`),
  ];
}

function run(argv: string[], given: CliIo): Promise<number> {
  // A missing database is told with every way run has to name one: --dsn, the variable, the profile.
  return withDsnContext({ flag: true, profile: true }, () => runPersonasCommand(argv, given));
}

async function runPersonasCommand(argv: string[], given: CliIo): Promise<number> {
  let io = given;
  await prepareLedger();
  const { values, positionals } = parseFlags(
    argv,
    {
      persona: { type: 'string', multiple: true },
      cycles: { type: 'string' },
      'state-dir': { type: 'string' },
      every: { type: 'string' },
      'no-spend': { type: 'boolean' },
      'max-isolates': { type: 'string' },
      'stop-grace': { type: 'string' },
      summary: { type: 'boolean' },
      json: { type: 'boolean' },
      demo: { type: 'boolean' },
      'plugins-dir': { type: 'string', multiple: true },
      'skills-dir': { type: 'string', multiple: true },
      workers: { type: 'string' },
      dsn: { type: 'string' },
    },
    'run',
  );
  const demo = values.demo === true;
  if (demo && (values.persona?.length || positionals.length)) throw kernelError('RTC_ERR_CLI_USAGE', '--demo picks its own personas; drop --persona');
  if (!demo && !values.persona?.length) throw kernelError('RTC_ERR_CLI_USAGE', 'name at least one persona: --persona ID_OR_FILE (see "runtimectl run --help")');

  const cycles = positiveInt('cycles', values.cycles) ?? (demo ? 3 : undefined);
  const maxResidentIsolates = positiveInt('max-isolates', values['max-isolates']);
  const every = seconds('every', values.every) ?? (demo ? 0 : undefined);
  const graceSeconds = seconds('stop-grace', values['stop-grace']) ?? DEFAULT_STOP_GRACE_SECONDS;
  if (graceSeconds <= 0) throw kernelError('RTC_ERR_CLI_USAGE', `--stop-grace ${values['stop-grace']}: must be above zero`);
  const workers = parseWorkers(values.workers);
  const summary = demo || values.summary === true;
  const spendTokens = !(demo || values['no-spend'] === true);

  // The environment is checked before anything is created: a bad override stops the start.
  readAgentEnv(io.env);
  // Every profile is read before anything starts, and every one that cannot be read is said at
  // once (each with all of its problems); the others still run, as with a start-check refusal.
  let unloaded: PersonaLoadFailure[] = [];
  let setup: { personas: LoadedPersona[]; stateDir: string };
  if (demo) setup = demoSetup(values['state-dir'], io);
  else {
    const loaded = loadPersonas([...(values.persona ?? []), ...positionals], { cwd: io.cwd });
    unloaded = loaded.failures;
    for (const f of unloaded) io.stderr(`runtimectl: ${f.error.toLine()}\n`);
    if (loaded.personas.length === 0) {
      if (values.json) io.stdout(`${JSON.stringify({ type: 'run_end', state_dir: null, personas: unloadedJson(unloaded) })}\n`);
      return 1;
    }
    setup = { personas: loaded.personas, stateDir: resolveStateDir(values['state-dir'], io) };
  }
  const skillsDirs = skillSearchPath(values['skills-dir'], io);
  const children = new ChildRegistry();
  // Plain data only: with --workers every worker opens its own kernel with these too.
  const kernelOptions = {
    stateDir: setup.stateDir,
    stateDirShown: demo && !values['state-dir'] ? setup.stateDir : chooseStateDir(values['state-dir'], io.env, io.cwd).given,
    env: { ...io.env },
    spendTokens,
    ...(values.dsn !== undefined ? { dsn: requiredDsn(values.dsn) } : {}),
    ...(maxResidentIsolates !== undefined ? { maxResidentIsolates } : {}),
    ...(values['plugins-dir'] ? { pluginPath: values['plugins-dir'].map((d) => path.resolve(io.cwd, d)) } : {}),
    ...(skillsDirs.length > 0 ? { skillsDirs } : {}),
  };
  // Each executor's harness gets this install's MCP tool server (a function: with --workers each worker makes its own).
  const kernel = await openLoopKernel({ children, ...kernelOptions, mcpServer: harnessToolServer(setup.personas) });
  for (const r of kernel.registry.refused) io.stderr(`runtimectl: refused plugin ${r.error.toLine()}\n`);
  if (demo && !values.json) {
    io.stdout(`runtimectl demo: ${setup.personas.map((p) => `${p.profile.id} (${p.profile.runtime})`).join(', ')}\n`);
    io.stdout(`state directory: ${setup.stateDir}\none work packet in each inbox; ${cycles} cycles back to back; token-spending executors held back (--no-spend)\n\n`);
  }
  // The same in both fleets (a worker's reports arrive here by message): --json streams one
  // object per cycle as it ends, so an endless run is watchable; lines otherwise.
  const onCycle = (report: Parameters<typeof scienceReport>[0]) => {
    const science = scienceReport(report);
    if (values.json) io.stdout(`${JSON.stringify({ type: 'cycle', persona_id: report.persona_id, ...jsonCycle(science) })}\n`);
    else for (const line of [...reviewLines(science), cycleLine(science)]) io.stdout(`${hint(io, line)}\n`);
  };
  // Between two cycles a persona waits its cadence (or --every): said, so a run is never silently idle.
  const onWait = (wait: CycleWait) => {
    if (values.json) io.stdout(`${JSON.stringify({ type: 'wait', ...wait })}\n`);
    else io.stdout(`${waitLine(wait)}\n`);
  };
  const loopRun = { ...(cycles !== undefined ? { cycles } : {}), ...(every !== undefined ? { everySeconds: every } : {}), onCycle, onWait };
  const fleet: LoopFleet =
    workers > 1
      ? await startWorkerFleet({ workers, personas: setup.personas, kernel, loop: kernelOptions, onNotice: (line) => io.stderr(`${line}\n`), ...loopRun })
      : inProcessFleet(children, await openPersonas(kernel, setup.personas), loopRun);
  const refused = fleet.refused;
  // What run prints about its personas has their secrets scrubbed too (by value and pattern).
  const scrub = scrubber(fleet.secrets);
  io = { ...given, stdout: (text) => given.stdout(scrub.text(text)), stderr: (text) => given.stderr(scrub.text(text)) };
  for (const r of refused) for (const line of r.problems) io.stderr(`runtimectl: RTC_ERR_PERSONA_START: ${line}\n`);

  let interrupts = 0;
  let backstop: NodeJS.Timeout | undefined;
  const stopNow = (why: string) => {
    if (backstop) return;
    const killAfter = graceSeconds / 2;
    void fleet.stop(killAfter * 1000).then((running) => io.stderr(`runtimectl: ${why}: stopping now: ${running} running subprocess(es) get TERM, KILL after ${killAfter} s\n`));
    // A kernel that cannot finish its stop in the grace still exits: the event log is durable
    // and the next start ends and records whatever was left.
    backstop = setTimeout(() => {
      io.stderr(`runtimectl: not stopped within the grace of ${graceSeconds} s; exiting (the next start recovers what was left)\n`);
      process.exit(1);
    }, graceSeconds * 1000);
    backstop.unref();
  };
  const onInt = () => {
    interrupts += 1;
    if (interrupts > 1) return stopNow('second SIGINT');
    io.stderr('runtimectl: SIGINT: finishing the current cycle, then stopping (SIGINT again: stop now)\n');
    fleet.finish();
  };
  const onTerm = () => stopNow('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  let runs: ScienceRun[];
  try {
    runs = (await fleet.run()) as ScienceRun[];
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    if (backstop) clearTimeout(backstop);
  }

  if (values.json) {
    // The stream's last object: how each persona ended (a refused one names its problems).
    const personas = [
      ...runs.map((r) => ({ persona_id: r.persona_id, stopped: r.stopped ?? null, refused: null, cycles: r.reports.length })),
      ...refused.map((r) => ({ persona_id: r.persona_id, stopped: null, refused: r.problems, cycles: 0 })),
      ...unloadedJson(unloaded),
    ];
    io.stdout(`${JSON.stringify({ type: 'run_end', state_dir: setup.stateDir, personas })}\n`);
  } else if (summary) {
    io.stdout('\nSummary: what each persona did and why\n\n');
    for (const r of runs) io.stdout(`${personaSummary(r, ledgerCounts(setup.stateDir, r.persona_id))}\n`);
    io.stdout(hint(io, `Inspect: runtimectl status --state-dir ${setup.stateDir}\nReplay the recorded cycles: runtimectl replay --state-dir ${setup.stateDir}\n`));
  }
  for (const r of runs) if (r.stopped) io.stderr(`runtimectl: persona ${r.persona_id} stopped: ${r.stopped}\n`);
  for (const r of runs) if (!r.stopped && runFailed(r)) io.stderr(`runtimectl: persona ${r.persona_id}: every cycle failed (last: ${r.reports.at(-1)?.defer_reason ?? 'see its events'})\n`);
  return refused.length > 0 || unloaded.length > 0 || runs.some((r) => runFailed(r)) ? 1 : 0;
}

/** --dsn's value: a database, never an empty string (which would silently fall back to another). */
function requiredDsn(value: string): string {
  if (value.trim() === '') throw kernelError('RTC_ERR_CLI_USAGE', '--dsn needs a value (a postgres:// DSN); see "runtimectl run --help"');
  return value;
}

/** A profile that could not be read, as run_end lists it: under the ref it was given by (its id is unknown). */
function unloadedJson(unloaded: readonly PersonaLoadFailure[]) {
  return unloaded.map((f) => ({ persona_id: f.ref, stopped: null, refused: [f.error.toLine()], cycles: 0 }));
}

export const runCommand: Command = {
  path: ['run'],
  summary: 'run personas\' continuous_science_loop (--demo: the example personas, with a summary)',
  usage: USAGE,
  run,
};
