/**
 * Replays a persona's recorded cycles: every plugin call of each cycle runs again, in order,
 * on the bundle the cycle ran (its code is in the trace's blobs), under the profile the cycle
 * ran under, while the broker answers every effect from the record and performs none.
 * Permission checks run as they did. A cycle checks out when every call asked for exactly the
 * recorded effects, returned the recorded result, and the cycle's trace hash recomputed from
 * the replay equals the one its event carries in the hash-chained log.
 *
 * Plugin state lives in isolates across calls, so a call can only be replayed after the
 * calls before it since its isolate was built (`fresh`). `--cycle N` therefore replays from
 * the latest cycle where every plugin it uses started fresh; the loop builds new isolates
 * every REPLAY_EPOCH_CYCLES cycles so that distance stays bounded.
 */
import path from 'node:path';
import { existsSync } from 'node:fs';
import { ReplayTape, type Effect } from '../cycle-recording/tape.ts';
import type { BindingImplementations } from '../../kernel/broker/bindings.ts';
import { CYCLE_EVENT } from '../../kernel/loop/cycle-event.ts';
import { kernelError, isKernelError } from '../../kernel/errors.ts';
import { buildPersonaPlugin, personaPluginOptions, type PersonaPluginKind, type PersonaPluginOptions } from '../persona/plugin-options.ts';
import { parseYaml, validateManifest } from '../../kernel/manifest/load.ts';
import type { PersistenceBackend, PersistenceProvider } from '../../kernel/contracts/persistence.ts';
import type { PersonaPaths } from '../persona-layout/layout.ts';
import { personaPaths } from '../persona-layout/layout.ts';
import { personaProfileSchema, type PersonaProfile } from '../../kernel/personas/profile-schema.ts';
import type { PluginInstance } from '../plugin-host/plugin-instance.ts';
import { type LoadedPlugin, type PluginRegistry, withGrant } from '../../kernel/plugins/registry.ts';
import { PLUGINS_DIR, scanRegistry } from '../plugin-search/scan.ts';
import { sha256Digest } from '../trace-store/content-store.ts';
import type { ModuleLoader, SandboxKit } from '../../kernel/sandbox.ts';
import { resultText } from '../cycle-recording/cycle-recorder.ts';
import { pathCodec, type PathCodec } from '../cycle-recording/path-codec.ts';
import { scrubEffectText } from '../cycle-recording/effect-scrub.ts';
import { scrubber } from '../secret-values/secret-values.ts';
import { INLINE_LIMIT, TRACE_FORMAT_VERSION, checkedTraceHash, traceSummarySchema, type TraceRecord, type TracedCall, type TracedText } from '../cycle-recording/trace-record.ts';
import { TOOL_TRACE_FILE, TraceStore } from '../trace-store/trace-store.ts';
import { traceSegmentsFor } from '../trace-store/trace-segments.ts';
import { parseRollupLines } from '../history-segments/index-entry.ts';
import { readIndexEntries } from '../history-segments/reader.ts';
import { REPLAY_EPOCH_CYCLES } from '../persona/persona-runtime.ts';
import { mountCode, type ToolCallee, type ToolRunners } from '../persona/tools/runners.ts';
import type { ScriptToolSpec } from '../persona/tools/script-spec.ts';
import { sha256 } from '../../kernel/events/envelope.ts';

export interface ReplayOptions {
  stateDir: string;
  personaId: string;
  /** the persistence feature (the persona's events are read through it) */
  persistence: PersistenceProvider;
  /** variables the composition gives the persona's plugins (as the loop does: the local ledger's path) */
  pluginEnv?: (paths: PersonaPaths, profile: PersonaProfile) => Record<string, string>;
  /** one cycle; undefined replays every recorded cycle */
  cycle?: number;
  /** the plugins to replay with (default: a scan of pluginsDir, else the built-in folder) */
  registry?: PluginRegistry;
  /** every recorded cycle from this one on (exclusive with `cycle`) */
  fromCycle?: number;
  pluginsDir?: string;
  /** the sandbox the recorded plugins are replayed in (the composition's: LoopComposition.sandbox), over this build cache (default: the kit's own) */
  sandbox(options: { cacheDir?: string }): SandboxKit;
  /** how recorded mounts and script tools are rebuilt (the composition's: LoopComposition.tools); a mount replays from the tape and starts no server */
  tools(kit: SandboxKit): ToolRunners;
  cacheDir?: string;
  /**
   * replay the installed plugins' current code instead of the recorded bundles: whether an
   * upgrade still makes the recorded cycles' decisions (Temporal's replay test of new code)
   */
  installed?: boolean;
  /** told about changed bundles before the replay starts */
  onNotice?: (line: string) => void;
  /** the shared database of a persona kept in Postgres (default: RUNTIMECTL_POSTGRES_DSN) */
  dsn?: string;
  /** the scripts of a profile's selected skills (the composition's scriptTools): what a recorded script tool's grant is rebuilt from */
  scriptTools?: (profile: PersonaProfile) => Promise<ScriptToolSpec[]>;
}

export interface BundleChange {
  plugin: string;
  recorded: string;
  /** sha256 of the installed plugin's bundle now; null when it is not installed */
  installed: string | null;
}

export interface Divergence {
  persona: string;
  cycle: number;
  /** index of the plugin call within the cycle */
  call: number;
  plugin: string;
  method: string;
  /** index of the effect within the call, when an effect diverged */
  effect: number | null;
  kind: 'effect' | 'output' | 'missing-effects' | 'trace-hash';
  /** RTC_ERR_REPLAY_OUTPUT when the call returned another result; RTC_ERR_REPLAY_DIVERGED for the effects and the trace hash */
  code: 'RTC_ERR_REPLAY_DIVERGED' | 'RTC_ERR_REPLAY_OUTPUT';
  expected: string;
  got: string;
  message: string;
}

export interface ReplayReport {
  persona: string;
  /** cycles checked (the selection) */
  cycles: number;
  /** earlier cycles replayed only to rebuild plugin state for a --cycle or --from-cycle selection */
  warmup_cycles: number;
  /** sealed segments read (event log, trace): a selection reads only those that can hold its cycles */
  segments_read: { events: number; trace: number };
  calls: number;
  effects: number;
  /** tool calls made outside any cycle (`mcp serve`, `tools call` on their own: trace/tools.jsonl) replayed, with --all */
  tool_calls: number;
  /** cycle events without a trace (written before tracing existed): not replayable */
  unrecorded: number[];
  changed_bundles: BundleChange[];
  divergence: Divergence | null;
  ok: boolean;
}

interface RecordedCycle {
  cycle: number;
  seq: number;
  /** undefined when the cycle called no plugin: it matches trivially and has no trace line */
  trace: TraceRecord | undefined;
}

/** The plugin calls a recorded cycle made (none for a cycle without a trace line). */
const callsOf = (c: RecordedCycle): readonly TracedCall[] => c.trace?.calls ?? [];

/** Bindings are never run in replay (the broker answers from the record); reaching one is a kernel bug. */
const NO_BINDINGS: BindingImplementations = new Proxy({} as BindingImplementations, {
  get() {
    throw new Error('replay performs no effect: a binding was called');
  },
});

function recordingError(message: string, details: Record<string, unknown> = {}): never {
  throw kernelError('RTC_ERR_REPLAY_RECORDING', message, { details });
}

/**
 * Cycles replayed before a selection to rebuild plugin state reach at most this far back: the
 * loop builds fresh isolates every REPLAY_EPOCH_CYCLES cycles. A history where that did not
 * hold (a plugin never rebuilt) is read from its start instead.
 */
const WARMUP_REACH = REPLAY_EPOCH_CYCLES;

/**
 * The first seq to read for cycles from `fromCycle` on: the first sealed segment whose rollup
 * says it holds a cycle at or after it (cycle numbers grow with seq). Segments without a
 * rollup are read, never skipped.
 */
function firstSeqFor(backend: PersistenceBackend, fromCycle: number): number {
  const history = backend.events.history;
  const entries = readIndexEntries(history);
  const rollups = new Map(parseRollupLines(history.readRollups(1), history.rollupsLabel).map((r) => [r.segment, r.rollup as { last_cycle_number?: number | null } | undefined]));
  for (const entry of entries) {
    const last = rollups.get(entry.segment)?.last_cycle_number;
    if (last === undefined || last === null || last >= fromCycle) return entry.first_seq;
  }
  return (entries.at(-1)?.last_seq ?? 0) + 1;
}

/**
 * The persona's cycle events that carry a trace, in log order, each with its trace line.
 * With `range`, only the segments (of the event log and of the trace) that can hold those
 * cycles are read.
 */
function recordedCycles(backend: PersistenceBackend, store: TraceStore, range?: { fromCycle: number; toCycle: number }): { cycles: RecordedCycle[]; unrecorded: number[]; segmentsRead: { events: number; trace: number } } {
  const { personaDir, personaId } = backend;
  const events = [];
  let eventSegments = 0;
  {
    const fromSeq = range ? firstSeqFor(backend, range.fromCycle) : 1;
    const entries = readIndexEntries(backend.events.history);
    eventSegments = entries.filter((e) => e.last_seq >= fromSeq).length;
    for (const event of backend.events.readAfter(fromSeq - 1)) {
      if (event.type !== CYCLE_EVENT) continue;
      const cycle = Number(event.payload.cycle);
      if (range && cycle > range.toCycle) break;
      if (!range || cycle >= range.fromCycle) events.push(event);
    }
  }
  const byHash = new Map<string, TraceRecord>();
  const traceSegments = traceSegmentsFor(store.history, range).length;
  for (const { record } of store.read(range)) byHash.set(record.hash, record);
  const cycles: RecordedCycle[] = [];
  const unrecorded: number[] = [];
  for (const event of events) {
    const cycle = Number(event.payload.cycle);
    const summary = traceSummarySchema.safeParse(event.payload.trace);
    if (!summary.success) {
      unrecorded.push(cycle);
      continue;
    }
    if (summary.data.calls === 0) {
      // no plugin call: nothing to replay, and no trace line was written (features/cycle-recording/cycle-recorder.ts)
      cycles.push({ cycle, seq: event.seq, trace: undefined });
      continue;
    }
    const trace = byHash.get(summary.data.hash);
    if (!trace) {
      recordingError(`${personaId} cycle ${cycle} (event seq ${event.seq}): its trace ${summary.data.hash.slice(0, 16)}… is not in ${path.relative(path.dirname(personaDir), store.file)}`, {
        cycle,
        seq: event.seq,
      });
    }
    if (trace.cycle !== cycle || trace.persona !== personaId) {
      recordingError(`${personaId} cycle ${cycle} (event seq ${event.seq}): its trace line is for ${trace.persona} cycle ${trace.cycle}`, { cycle, seq: event.seq });
    }
    cycles.push({ cycle, seq: event.seq, trace });
  }
  return { cycles, unrecorded, segmentsRead: { events: eventSegments, trace: traceSegments } };
}

/** The recorded tool calls made outside any cycle, in log order: each `tool_call` event naming a line of trace/tools.jsonl. */
async function recordedToolCalls(persistence: PersistenceProvider, personaDir: string, personaId: string, registry: PluginRegistry, dsn?: string): Promise<{ seq: number; trace: TraceRecord }[]> {
  const store = new TraceStore(personaDir, { readonly: true, file: TOOL_TRACE_FILE });
  const backend = await persistence.open(personaDir, undefined, { readonly: true, personaId, registry, ...(dsn ? { dsn } : {}) });
  const named: { seq: number; hash: string }[] = [];
  try {
    for (const event of backend.events.read()) {
      const trace = event.type === 'tool_call' ? (event.payload.trace as { file?: string; hash?: string } | undefined) : undefined;
      if (trace?.file === TOOL_TRACE_FILE && typeof trace.hash === 'string') named.push({ seq: event.seq, hash: trace.hash });
    }
  } finally {
    await backend.close();
  }
  if (named.length === 0) return [];
  const byHash = new Map<string, TraceRecord>();
  for (const { record } of store.read()) byHash.set(record.hash, record);
  return named.map(({ seq, hash }) => {
    const trace = byHash.get(hash);
    if (!trace) recordingError(`${personaId} tool call (event seq ${seq}): its trace ${hash.slice(0, 16)}… is not in ${TOOL_TRACE_FILE}`, { seq });
    return { seq, trace };
  });
}

/** The latest cycle at or before `target` from which every plugin called up to it was first called fresh, or -1. */
function findStart(cycles: readonly RecordedCycle[], target: number): number {
  for (let start = target; start >= 0; start--) {
    const seen = new Set<string>();
    let ok = true;
    for (let i = start; i <= target && ok; i++) {
      for (const call of callsOf(cycles[i]!)) {
        if (seen.has(call.plugin)) continue;
        seen.add(call.plugin);
        if (!call.fresh) ok = false;
      }
    }
    if (ok) return start;
  }
  return -1;
}

function canStart(cycles: readonly RecordedCycle[], target: number): boolean {
  return target < 0 || findStart(cycles, target) >= 0;
}

/**
 * Index of the first cycle to replay so that `target` sees the plugin state it had: the latest
 * cycle from which every plugin called up to the target was first called fresh.
 */
function replayStart(personaId: string, cycles: readonly RecordedCycle[], target: number): number {
  const start = findStart(cycles, target);
  if (start >= 0) return start;
  return recordingError(`${personaId} cycle ${cycles[target]!.cycle}: no recorded cycle starts its plugins fresh, so their state cannot be rebuilt`);
}

/** What a traced text hashes as, without storing anything. */
function digestForm(text: string): TracedText {
  const bytes = Buffer.byteLength(text);
  return bytes <= INLINE_LIMIT ? text : { blob: sha256Digest(text), bytes };
}

/** Whether two traced texts are written the same (hash the same). */
function sameText(a: TracedText, b: TracedText): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a.blob === b.blob && a.bytes === b.bytes;
}

function truncate(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

class Replayer {
  readonly #store: TraceStore;
  readonly #codec: PathCodec;
  /** the pattern rules (a replayed plugin only sees the scrubbed record, so values need none) */
  readonly #scrub = scrubber();
  readonly #stateDir: string;
  readonly #plugins: Map<string, LoadedPlugin>;
  readonly #kit: SandboxKit;
  readonly #profiles = new Map<string, PersonaProfile>();
  readonly #instances = new Map<string, { instance: PluginInstance | ToolCallee; bundle: string; profile: string }>();
  readonly #scriptTools: ReplayOptions['scriptTools'];
  readonly #scriptSpecs = new Map<string, Promise<ScriptToolSpec[]>>();
  readonly #tools: (kit: SandboxKit) => ToolRunners;
  #runners: ToolRunners | undefined;
  calls = 0;
  effects = 0;

  readonly #installed: boolean;

  readonly #pluginEnv: ReplayOptions['pluginEnv'];

  constructor(o: { store: TraceStore; stateDir: string; plugins: Map<string, LoadedPlugin>; kit: SandboxKit; tools: (kit: SandboxKit) => ToolRunners; installed: boolean; pluginEnv: ReplayOptions['pluginEnv']; scriptTools: ReplayOptions['scriptTools'] }) {
    this.#scriptTools = o.scriptTools;
    this.#installed = o.installed;
    this.#pluginEnv = o.pluginEnv;
    this.#store = o.store;
    this.#codec = pathCodec(o.stateDir);
    this.#stateDir = o.stateDir;
    this.#plugins = o.plugins;
    this.#kit = o.kit;
    this.#tools = o.tools;
  }

  #profile(digest: string, persona: string): PersonaProfile {
    const known = this.#profiles.get(digest);
    if (known) return known;
    const text = this.#store.blobs.get(digest).toString('utf8');
    const where = `${persona}'s recorded profile ${digest.slice(0, 16)}…`;
    const profile = validateManifest(personaProfileSchema, parseYaml(text, where), where) as PersonaProfile;
    this.#profiles.set(digest, profile);
    return profile;
  }

  #options(trace: TraceRecord): PersonaPluginOptions {
    const profile = this.#profile(trace.profile, trace.persona);
    return personaPluginOptions({
      stateDir: this.#stateDir,
      profile,
      hostEnv: {},
      extraEnv: this.#pluginEnv?.(personaPaths(this.#stateDir, profile.id), profile) ?? {},
      limits: { cpu_seconds_per_cycle: trace.limits.cpu_seconds, wall_seconds_per_cycle: trace.limits.wall_seconds },
      kit: this.#kit,
      tools: this.#tools,
      bindings: NO_BINDINGS,
      audit: () => undefined,
    });
  }

  async #instance(trace: TraceRecord, call: TracedCall): Promise<PluginInstance | ToolCallee> {
    const held = this.#instances.get(call.plugin);
    if (held && !call.fresh && held.bundle === call.bundle && held.profile === trace.profile) return held.instance;
    held?.instance.dispose();
    if (call.plugin.startsWith('skill:')) return this.#script(trace, call);
    const installed = this.#plugins.get(call.plugin);
    if (!installed) recordingError(`${trace.persona} cycle ${trace.cycle}: plugin ${call.plugin} is not installed; its manifest is needed for the grant it ran under`, { plugin: call.plugin });
    // In the tier the recorded profile's trust: gave it (an outside plugin is isolated unless granted).
    const plugin = withGrant(installed, this.#profile(trace.profile, trace.persona).trust);
    if (plugin.manifest.mcp) {
      // a mounted MCP server: every call's answer is on the tape, so no server is started
      const o = this.#options(trace);
      const mount = this.#runnersNow().mount(plugin, { allow: o.allow, vars: o.vars, env: o.env, cwd: o.otherCwd });
      this.#instances.set(call.plugin, { instance: mount, bundle: call.bundle, profile: trace.profile });
      return mount;
    }
    const kind = plugin.manifest.kind as PersonaPluginKind;
    const bundle = this.#installed ? undefined : { code: this.#store.blobs.get(call.bundle).toString('utf8'), digest: call.bundle.slice('sha256:'.length) };
    const instance = buildPersonaPlugin(this.#options(trace), plugin, kind, bundle);
    this.#instances.set(call.plugin, { instance, bundle: call.bundle, profile: trace.profile });
    return instance;
  }

  /**
   * A skill's script, run on its recorded bundle (or, with --installed, its current file)
   * under the grant its skill's manifest gives now: the skill must still be there, as a
   * plugin must still be installed.
   */
  async #script(trace: TraceRecord, call: TracedCall): Promise<ToolCallee> {
    const profile = this.#profile(trace.profile, trace.persona);
    let specs = this.#scriptSpecs.get(trace.profile);
    if (!specs) this.#scriptSpecs.set(trace.profile, (specs = this.#scriptTools?.(profile) ?? Promise.resolve([])));
    const spec = (await specs).find((s) => s.traceId === call.plugin);
    if (!spec) recordingError(`${trace.persona} cycle ${trace.cycle}: ${call.plugin} is not a script of a skill the recorded profile selects (in the skill folders given); its skill's manifest is needed for the grant it ran under`, { plugin: call.plugin });
    const o = this.#options(trace);
    const bundle = this.#installed ? undefined : { code: this.#store.blobs.get(call.bundle).toString('utf8'), digest: call.bundle.slice('sha256:'.length) };
    const tool = this.#runnersNow().script(spec, { allow: o.allow, vars: o.vars, env: o.env, cwd: o.otherCwd, cpuSeconds: o.cpuSeconds }, bundle);
    this.#instances.set(call.plugin, { instance: tool, bundle: call.bundle, profile: trace.profile });
    return tool;
  }

  /** The mounts and script tools of this replay, made on first need. */
  #runnersNow(): ToolRunners {
    this.#runners ??= this.#tools(this.#kit);
    return this.#runners;
  }

  /** Replays one cycle; returns its divergence, or null when it matched. */
  async cycle(trace: TraceRecord, expectedHash: string): Promise<Divergence | null> {
    const replayed: TracedCall[] = [];
    let unchanged = true;
    for (const [index, call] of trace.calls.entries()) {
      const where = `${trace.persona} cycle ${trace.cycle} call ${index} (${call.plugin}.${call.method})`;
      const diverge = (kind: Divergence['kind'], effect: number | null, expected: string, got: string, message: string): Divergence => ({
        persona: trace.persona,
        cycle: trace.cycle,
        call: index,
        plugin: call.plugin,
        method: call.method,
        effect,
        kind,
        code: kind === 'output' ? 'RTC_ERR_REPLAY_OUTPUT' : 'RTC_ERR_REPLAY_DIVERGED',
        expected,
        got,
        message,
      });
      const effects: Effect[] = call.effects.map((e, i) => ({
        i,
        op: e.op,
        args: this.#store.internalize(e.args),
        answer: this.#codec.fromRecord(this.#store.internalize(e.answer)),
      }));
      const argsText = this.#store.internalize(call.args);
      const instance = await this.#instance(trace, call);
      const tape = new ReplayTape(effects, where, { normalize: (args, op) => this.#codec.toRecord(scrubEffectText(op, 'args', args, this.#scrub)) });
      instance.broker.context.tape = tape;
      let outcome: { ok: unknown } | { err: unknown };
      try {
        outcome = { ok: await instance.call(call.method, ...(JSON.parse(this.#codec.fromRecord(argsText)) as unknown[])) };
      } catch (error) {
        outcome = { err: error };
      } finally {
        delete instance.broker.context.tape;
      }
      this.calls += 1;
      this.effects += tape.consumed;
      if (tape.divergence) {
        const d = tape.divergence.details as { index: number; expected: { op: string; args: string } | null; got: { op: string; args: string } };
        return diverge('effect', d.index, d.expected ? `${d.expected.op} ${truncate(d.expected.args)}` : 'no more effects', `${d.got.op} ${truncate(d.got.args)}`, tape.divergence.message);
      }
      const got = this.#codec.toRecord(resultText(outcome));
      const expected = this.#store.internalize(call.result);
      if (got !== expected) {
        return diverge('output', null, truncate(expected), truncate(got), `${where}: returned ${truncate(got)}, but the recording returned ${truncate(expected)}`);
      }
      if (tape.remaining > 0) {
        const next = effects[tape.consumed]!;
        return diverge('missing-effects', tape.consumed, `${next.op} ${truncate(next.args)}`, 'nothing', `${where}: effect ${tape.consumed}: recorded ${next.op} ${truncate(next.args)}, but the code finished without asking for it (${tape.remaining} recorded effect(s) never asked)`);
      }
      const replayedCall = { ...call, args: digestForm(this.#codec.toRecord(JSON.stringify(JSON.parse(this.#codec.fromRecord(argsText))))), result: digestForm(got) };
      unchanged &&= sameText(replayedCall.args, call.args) && sameText(replayedCall.result, call.result);
      replayed.push(replayedCall);
    }
    // The replayed body differs from the recorded one only in each call's args and result. When
    // all of them are the recorded texts, it is the recorded body, whose hash TraceStore.read
    // checked equals trace.hash: the recomputed hash would be that, so it is not recomputed.
    if (unchanged && expectedHash === trace.hash) return null;
    // built from a checked record and strict replayed texts: the fast writer gives traceHash's bytes
    const hash = checkedTraceHash({ v: TRACE_FORMAT_VERSION, persona: trace.persona, cycle: trace.cycle, now: trace.now, profile: trace.profile, limits: trace.limits, calls: replayed });
    if (hash !== expectedHash) {
      const last = trace.calls.at(-1);
      return {
        persona: trace.persona,
        cycle: trace.cycle,
        call: trace.calls.length - 1,
        plugin: last?.plugin ?? '-',
        method: last?.method ?? '-',
        effect: null,
        kind: 'trace-hash',
        code: 'RTC_ERR_REPLAY_DIVERGED',
        expected: expectedHash,
        got: hash,
        message: `${trace.persona} cycle ${trace.cycle}: the replayed trace hashes to ${hash}, but the cycle event carries ${expectedHash}`,
      };
    }
    return null;
  }

  dispose(): void {
    for (const { instance } of this.#instances.values()) instance.dispose();
    this.#instances.clear();
    void this.#runners?.close();
    this.#runners = undefined;
  }
}

/** sha256 of each installed plugin's current bundle, for the "changed since the recording" report. */
async function bundleChanges(used: Map<string, Set<string>>, plugins: Map<string, LoadedPlugin>, loader: ModuleLoader): Promise<BundleChange[]> {
  const out: BundleChange[] = [];
  for (const [plugin, recorded] of [...used.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    // a skill's script is no installed plugin: whether its file changed is not reported here
    if (plugin.startsWith('skill:')) continue;
    const loaded = plugins.get(plugin);
    let installed: string | null = null;
    if (loaded?.manifest.mcp) installed = `sha256:${sha256(mountCode(loaded.manifest.mcp))}`;
    else if (loaded) {
      try {
        installed = `sha256:${(await loader.bundle(loaded.entry)).digest}`;
      } catch (error) {
        if (!isKernelError(error)) throw error;
      }
    }
    for (const digest of [...recorded].sort()) if (digest !== installed) out.push({ plugin, recorded: digest, installed });
  }
  return out;
}

export async function replayPersona(options: ReplayOptions): Promise<ReplayReport> {
  const stateDir = path.resolve(options.stateDir);
  const personaDir = path.join(stateDir, options.personaId);
  if (!existsSync(personaDir)) {
    recordingError(`${options.personaId}: no such persona in ${options.stateDir}`, { persona: options.personaId });
  }
  const registry = options.registry ?? scanRegistry(options.pluginsDir ?? PLUGINS_DIR);
  // A backend that keeps the trace itself (postgres) is read for the whole replay.
  const backend = await options.persistence.open(personaDir, undefined, { readonly: true, personaId: options.personaId, registry, ...(options.dsn ? { dsn: options.dsn } : {}) });
  try {
    return await replayWith(options, backend, new TraceStore(personaDir, { readonly: true, ...(backend.trace ? { storage: backend.trace } : {}) }), registry);
  } finally {
    await backend.close();
  }
}

async function replayWith(options: ReplayOptions, backend: PersistenceBackend, store: TraceStore, registry: PluginRegistry): Promise<ReplayReport> {
  const stateDir = path.resolve(options.stateDir);
  const target = options.cycle ?? options.fromCycle;
  const range = target === undefined ? undefined : { fromCycle: Math.max(1, target - WARMUP_REACH), toCycle: options.cycle ?? Number.MAX_SAFE_INTEGER };
  let { cycles, unrecorded, segmentsRead } = recordedCycles(backend, store, range);
  // A plugin that was never rebuilt within the reach (the epoch rule makes that rare): read from the start.
  if (range && target !== undefined && cycles.length > 0 && !canStart(cycles, cycles.findIndex((c) => c.cycle >= target))) {
    ({ cycles, unrecorded, segmentsRead } = recordedCycles(backend, store, { fromCycle: 1, toCycle: range.toCycle }));
  }
  let first = 0;
  let last = cycles.length - 1;
  if (options.fromCycle !== undefined) {
    const at = cycles.findIndex((c) => c.cycle >= options.fromCycle!);
    if (at < 0) {
      const span = cycles.length > 0 ? `recorded cycles end at ${cycles.at(-1)!.cycle}` : 'no cycle is recorded';
      recordingError(`${options.personaId} cycle ${options.fromCycle}: nothing to replay from there (${span})`, { cycle: options.fromCycle });
    }
    first = replayStart(options.personaId, cycles, at);
    // warm-up runs to the selection's first cycle; every cycle from it on is checked
    last = cycles.length - 1;
  }
  if (options.cycle !== undefined) {
    const at = cycles.findIndex((c) => c.cycle === options.cycle);
    if (at < 0) {
      const range = cycles.length > 0 ? `recorded cycles are ${cycles[0]!.cycle}..${cycles.at(-1)!.cycle}` : 'no cycle is recorded';
      const why = unrecorded.includes(options.cycle) ? 'it ran before cycles were traced' : range;
      recordingError(`${options.personaId} cycle ${options.cycle}: not replayable (${why})`, { cycle: options.cycle });
    }
    first = replayStart(options.personaId, cycles, at);
    last = at;
  }
  const selected = cycles.slice(first, last + 1);
  const kit = options.sandbox(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {});
  const plugins = new Map(registry.list().map((p) => [p.manifest.id, p]));
  const used = new Map<string, Set<string>>();
  for (const c of selected) for (const call of callsOf(c)) (used.get(call.plugin) ?? used.set(call.plugin, new Set()).get(call.plugin)!).add(call.bundle);
  const changed = await bundleChanges(used, plugins, kit.loader);
  for (const change of changed) {
    options.onNotice?.(
      `${options.personaId}: plugin ${change.plugin} ${change.installed ? `changed since the recording (recorded bundle ${change.recorded.slice(0, 19)}…, installed ${change.installed.slice(0, 19)}…)` : `is no longer installed (recorded bundle ${change.recorded.slice(0, 19)}…)`}; replaying ${options.installed ? 'the installed code' : 'the recorded bundle'}`,
    );
  }
  const selectionStart = options.fromCycle !== undefined ? cycles.findIndex((c) => c.cycle >= options.fromCycle!) : options.cycle !== undefined ? last : first;
  const report: ReplayReport = {
    persona: options.personaId,
    cycles: 0,
    warmup_cycles: 0,
    segments_read: segmentsRead,
    calls: 0,
    effects: 0,
    tool_calls: 0,
    unrecorded,
    changed_bundles: changed,
    divergence: null,
    ok: true,
  };
  const replayer = new Replayer({ store, stateDir, plugins, kit, tools: options.tools, installed: options.installed ?? false, pluginEnv: options.pluginEnv, scriptTools: options.scriptTools });
  try {
    for (const [i, c] of selected.entries()) {
      report.divergence = c.trace ? await replayer.cycle(c.trace, c.trace.hash) : null;
      if (report.divergence) break;
      if (first + i < selectionStart) report.warmup_cycles += 1;
      else report.cycles += 1;
    }
  } finally {
    replayer.dispose();
  }
  report.calls = replayer.calls;
  report.effects = replayer.effects;
  // Tool calls made outside any cycle, with every cycle: in their own replayer (their isolates were their session's, not the loop's).
  if (options.cycle === undefined && options.fromCycle === undefined && report.divergence === null) {
    const toolCalls = await recordedToolCalls(options.persistence, backend.personaDir, options.personaId, registry, options.dsn);
    if (toolCalls.length > 0) {
      const toolStore = new TraceStore(backend.personaDir, { readonly: true, file: TOOL_TRACE_FILE });
      const tools = new Replayer({ store: toolStore, stateDir, plugins, kit, tools: options.tools, installed: options.installed ?? false, pluginEnv: options.pluginEnv, scriptTools: options.scriptTools });
      try {
        for (const { trace } of toolCalls) {
          report.divergence = await tools.cycle(trace, trace.hash);
          if (report.divergence) break;
          report.tool_calls += 1;
        }
      } finally {
        tools.dispose();
      }
      report.calls += tools.calls;
      report.effects += tools.effects;
    }
  }
  report.ok = report.divergence === null;
  return report;
}
