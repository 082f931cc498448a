/**
 * Issue 24 item 8, "forever, measured": one kernel running N personas for M minutes, killed
 * with SIGKILL and started again every K minutes, its hostile phase selector faulting every
 * F cycles of each persona and the fake agent calling tools in each session; the kernel
 * process's resident memory and open descriptors sampled every S seconds (and its children's,
 * summed); at the end every chain verified (`runtimectl verify --full`) and every cycle the
 * kernel acknowledged (a `{"type":"cycle"}` line of `run --json`) looked up in the log.
 *
 * The samples go to bench/out/soak-<time>.jsonl as they are taken (a cut-off run keeps what it
 * measured), the summary to bench/out/soak-<time>.json.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { closeBridges } from '../../../features/persistence/storage/postgres/pg-bridge.ts';
import { CYCLE_EVENT } from '../../../kernel/loop/cycle-event.ts';
import { PROJECT_ROOT } from '../../../kernel/version.ts';
import { openHistoryReader } from '../../../features/history/read-path.ts';
import { FAULTS, writePlugins, writeProfiles } from './fixtures.ts';
import { addPacket } from '../../../features/inbox/work.ts';
import { ensurePersonaDir } from '../../../features/persistence/state/state-dir.ts';
import { startKernel, type Ack, type KernelLife } from './kernel.ts';
import type { SoakOptions } from './options.ts';
import { sampleTree } from './sampler.ts';
import { pooledSlope, type Fit, type Point } from './slopes.ts';

export interface SoakSample {
  t_s: number;
  life: number;
  life_age_s: number;
  pid: number;
  cycles_total: number;
  cycles_life: number;
  kernel_rss_kb: number;
  kernel_fds: number;
  children: number;
  children_rss_kb: number;
  children_fds: number;
  load1: number;
}

export interface SoakResult {
  options: SoakOptions;
  osSandbox: boolean;
  samplesFile: string;
  summaryFile: string;
  wallMinutes: number;
  lives: number;
  unexpectedExits: string[];
  acknowledged: number;
  /** work packets given */
  fed: number;
  sessions: number;
  faults: { expected: number; failed: number; byKind: Record<string, number>; spilled: number };
  lost: string[];
  /** the agents' review.propose calls, as the personas' logs record them: queued, and refused by code (a full queue, the per-proposer rate) */
  proposals: { calls: number; queued: number; refused: Record<string, number> };
  /** `ok`: every persona's chain, trace and state verify; `state`: the state directory's own checks that failed (reported apart) */
  verify: { ok: boolean; personas: number; failed: string[]; state: string[]; error?: string };
  rss: { perHour?: Fit; per10k?: Fit };
  fds: { perHour?: Fit; per10k?: Fit };
  childrenRss: { perHour?: Fit };
}

const BIN = path.join(PROJECT_ROOT, 'bin', 'runtimectl.js');

/** Whether bubblewrap can start here (the personas then run their sessions in it, as required by default). */
function bubblewrapWorks(): boolean {
  const r = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', 'true'], { stdio: 'ignore' });
  return r.status === 0;
}

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

async function stop(life: KernelLife, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  life.kill(signal);
  const done = await Promise.race([life.exited.then(() => true), sleep(graceMs).then(() => false)]);
  if (!done) {
    life.kill('SIGKILL');
    await life.exited;
  }
}

export async function runSoak(o: SoakOptions, tmp: string, log: (line: string) => void): Promise<SoakResult> {
  const dir = path.join(tmp, 'soak');
  const stateDir = path.join(dir, 'state');
  const pluginsDir = path.join(dir, 'plugins');
  mkdirSync(stateDir, { recursive: true });
  const osSandbox = bubblewrapWorks();
  writePlugins(pluginsDir, o);
  const { ids, files } = writeProfiles(path.join(dir, 'profiles'), o, osSandbox);
  const outDir = path.join(PROJECT_ROOT, 'bench', 'out');
  mkdirSync(outDir, { recursive: true });
  const base = path.join(outDir, `soak-${stamp()}`);
  const samplesFile = `${base}.jsonl`;
  const summaryFile = `${base}.json`;
  writeFileSync(samplesFile, '');
  // The plugin folder on the search path of every command (run and verify alike).
  const env = { PATH: process.env.PATH, HOME: dir, RUNTIMECTL_PLUGIN_PATH: pluginsDir, ...(process.env.RUNTIMECTL_CACHE_DIR ? { RUNTIMECTL_CACHE_DIR: process.env.RUNTIMECTL_CACHE_DIR } : {}) };

  const acks: Ack[] = [];
  const unexpectedExits: string[] = [];
  const start = (life: number) => startKernel(life, { files, stateDir, everySeconds: o.cycleSeconds, env, onAck: (a) => acks.push(a) });
  const t0 = Date.now();
  const end = t0 + o.minutes * 60_000;
  let life = 0;
  let current = start(life);
  let exited = false;
  const watch = (k: KernelLife) => void k.exited.then((r) => {
    if (k !== current || stopping) return;
    exited = true;
    // A kernel that ends before its first cycle is a set-up the soak cannot run (a refused persona, a bad plugin): say why and stop.
    if (k.life === 0 && k.cycles === 0) failedStart = `life ${k.life} of the soak's kernel exited (${r.signal ?? `status ${r.code}`}) before any cycle: ${k.stderrTail().trim().split('\n').slice(-3).join(' | ')}`;
    unexpectedExits.push(`life ${k.life} (pid ${k.pid}) exited by itself (${r.signal ?? `status ${r.code}`}): ${k.stderrTail().trim().split('\n').slice(-2).join(' | ')}`);
  });
  let stopping = false;
  let failedStart: string | undefined;
  watch(current);
  log(`  soak: ${o.personas} personas, ${o.minutes} min, kill -9 every ${o.killEvery || 'never'} min, fault every ${o.faultEvery} cycles, cycle every ${o.cycleSeconds} s, a session every ${o.sessionEvery} s per persona, OS sandbox ${osSandbox ? 'bubblewrap' : 'off (bwrap cannot start here)'}; samples → ${path.relative(PROJECT_ROOT, samplesFile)}`);
  let nextKill = o.killEvery > 0 ? t0 + o.killEvery * 60_000 : Infinity;
  let nextSample = t0 + o.sampleEvery * 1000;
  // Each persona is given a work packet every sessionEvery seconds (staggered), worth a session
  // of the fake agent; given through the inbox the way `runtimectl inbox add` gives one.
  const nextFeed = ids.map((_, i) => t0 + (i / ids.length) * o.sessionEvery * 1000);
  let fed = 0;
  const samples: SoakSample[] = [];
  while (Date.now() < end) {
    await sleep(Math.max(50, Math.min(nextSample, nextKill, end, ...nextFeed) - Date.now()));
    const now = Date.now();
    for (const [i, id] of ids.entries()) {
      if (now < nextFeed[i]!) continue;
      nextFeed[i]! += o.sessionEvery * 1000;
      fed += 1;
      addPacket(ensurePersonaDir(stateDir, id), `soak-${String(fed).padStart(6, '0')}.md`, Buffer.from(`# Soak work ${fed} for ${id}\n\ntier: 4\n\nGiven at ${new Date(now).toISOString()}.\n`));
    }
    if (failedStart) throw new Error(`soak: ${failedStart}`);
    if (exited) {
      // It died by itself: counted, and started again so the soak goes on.
      exited = false;
      life += 1;
      current = start(life);
      watch(current);
    }
    if (now >= nextKill && now < end) {
      stopping = true;
      await stop(current, 'SIGKILL', 10_000);
      stopping = false;
      life += 1;
      log(`  soak: kill -9 of life ${life - 1} after ${Math.round((now - current.startedAt) / 1000)} s (${current.cycles} cycles); life ${life} starts (${Math.round((now - t0) / 60_000)} of ${o.minutes} min)`);
      current = start(life);
      watch(current);
      nextKill += o.killEvery * 60_000;
    }
    if (now >= nextSample) {
      nextSample += o.sampleEvery * 1000;
      // A kernel spawned this very second is not yet itself (its node is still loading): no sample.
      if (now - current.startedAt < 1000) continue;
      try {
        const s = sampleTree(current.pid);
        const sample: SoakSample = {
          t_s: Math.round((now - t0) / 100) / 10,
          life: current.life,
          life_age_s: Math.round((now - current.startedAt) / 100) / 10,
          pid: current.pid,
          cycles_total: acks.length,
          cycles_life: current.cycles,
          kernel_rss_kb: s.kernel.rssKb,
          kernel_fds: s.kernel.fds,
          children: s.children.count,
          children_rss_kb: s.children.rssKb,
          children_fds: s.children.fds,
          load1: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
        };
        samples.push(sample);
        appendFileSync(samplesFile, `${JSON.stringify(sample)}\n`);
        log(`  soak: ${sample.t_s} s, life ${sample.life}: ${sample.cycles_life} cycles, kernel ${(sample.kernel_rss_kb / 1024).toFixed(1)} MiB and ${sample.kernel_fds} fds; ${sample.children} children ${(sample.children_rss_kb / 1024).toFixed(1)} MiB; load ${sample.load1}`);
      } catch {
        // the kernel was between lives: the next sample finds the new one
      }
    }
  }
  stopping = true;
  await stop(current, 'SIGTERM', 40_000);
  const wallMinutes = (Date.now() - t0) / 60_000;

  log(`  soak: verifying ${ids.length} chains and ${acks.length} acknowledged cycles`);
  const verify = verifyChains(stateDir, env);
  const { lost, proposals } = await readLogs(stateDir, ids, acks);

  // The slopes, past each life's warm-up.
  const warm = samples.filter((s) => s.life_age_s >= o.warmupMinutes * 60);
  const points = (y: (s: SoakSample) => number, x: (s: SoakSample) => number): Point[] => warm.map((s) => ({ life: s.life, x: x(s), y: y(s) }));
  const hours = (s: SoakSample) => s.life_age_s / 3600;
  const tenK = (s: SoakSample) => s.cycles_life / 10_000;
  const rss = (s: SoakSample) => s.kernel_rss_kb / 1024;
  const fds = (s: SoakSample) => s.kernel_fds;
  const result: SoakResult = {
    options: o,
    osSandbox,
    samplesFile,
    summaryFile,
    wallMinutes: Math.round(wallMinutes * 10) / 10,
    lives: life + 1,
    unexpectedExits,
    acknowledged: acks.length,
    fed,
    sessions: acks.filter((a) => a.session).length,
    faults: faultCount(acks, o.faultEvery),
    lost,
    proposals,
    verify,
    rss: { ...opt('perHour', pooledSlope(points(rss, hours))), ...opt('per10k', pooledSlope(points(rss, tenK))) },
    fds: { ...opt('perHour', pooledSlope(points(fds, hours))), ...opt('per10k', pooledSlope(points(fds, tenK))) },
    childrenRss: { ...opt('perHour', pooledSlope(points((s) => s.children_rss_kb / 1024, hours))) },
  };
  writeFileSync(summaryFile, `${JSON.stringify(result, null, 2)}\n`);
  await closeBridges();
  return result;
}

function opt<K extends string>(key: K, fit: Fit | undefined): Partial<Record<K, Fit>> {
  return fit ? ({ [key]: fit } as Record<K, Fit>) : {};
}

/** Cycles on the hostile selector's fault schedule, how many of them failed (by fault), and failures off it (a fault that spilled over). */
function faultCount(acks: readonly Ack[], every: number): SoakResult['faults'] {
  const byKind: Record<string, number> = Object.fromEntries(FAULTS.map((f) => [f, 0]));
  let expected = 0;
  let failed = 0;
  let spilled = 0;
  for (const a of acks) {
    const scheduled = a.cycle % every === 0;
    if (scheduled) expected += 1;
    if (a.outcome !== 'failed') continue;
    if (scheduled) {
      failed += 1;
      const kind = FAULTS[Math.floor(a.cycle / every) % FAULTS.length]!;
      byKind[kind] = (byKind[kind] ?? 0) + 1;
    } else spilled += 1;
  }
  return { expected, failed, byKind, spilled };
}

/** `runtimectl verify --full --json` over the state directory: every persona's chain, trace and state. */
function verifyChains(stateDir: string, env: NodeJS.ProcessEnv): SoakResult['verify'] {
  const r = spawnSync(process.execPath, ['--no-node-snapshot', BIN, 'verify', '--full', '--json', '--state-dir', stateDir], { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  try {
    const report = JSON.parse(r.stdout) as { ok: boolean; state: { name: string; status: string; summary?: string }[]; personas: { id: string; ok: boolean; checks: { name: string; status: string }[] }[] };
    const failed = report.personas.filter((p) => !p.ok).map((p) => `${p.id}: ${p.checks.filter((c) => c.status === 'failed').map((c) => c.name).join(', ')}`);
    // The state directory's own checks (substrate.json) are reported apart: verify does not look
    // for plugins on RUNTIMECTL_PLUGIN_PATH there, so the soak's own plugins read as "gone".
    const state = report.state.filter((c) => c.status === 'failed').map((c) => `${c.name}${c.summary ? `: ${c.summary}` : ''}`);
    return { ok: report.personas.length > 0 && report.personas.every((p) => p.ok), personas: report.personas.length, failed, state };
  } catch {
    return { ok: false, personas: 0, failed: [], state: [], error: `verify exited ${r.status}: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}` };
  }
}

/**
 * Every acknowledged cycle must be in its persona's log: a cycle event at its seq, with its
 * cycle number. The same read counts the agents' proposals (their tool_call events).
 */
async function readLogs(stateDir: string, ids: readonly string[], acks: readonly Ack[]): Promise<{ lost: string[]; proposals: SoakResult['proposals'] }> {
  const lost: string[] = [];
  const proposals: SoakResult['proposals'] = { calls: 0, queued: 0, refused: {} };
  for (const id of ids) {
    const mine = acks.filter((a) => a.persona === id);
    const reader = await openHistoryReader(stateDir, id);
    try {
      const events = reader.eventsAfter(0);
      for (const e of events) {
        const p = e.payload as { tool?: unknown; ok?: unknown; code?: unknown };
        if (e.type !== 'tool_call' || p.tool !== 'review.propose') continue;
        proposals.calls += 1;
        if (p.ok === true) proposals.queued += 1;
        else {
          const code = typeof p.code === 'string' ? p.code : 'unknown';
          proposals.refused[code] = (proposals.refused[code] ?? 0) + 1;
        }
      }
      const bySeq = new Map(events.map((e) => [e.seq, e]));
      for (const a of mine) {
        const e = bySeq.get(a.seq);
        const payload = e?.payload as { cycle?: unknown } | undefined;
        if (!e || e.type !== CYCLE_EVENT || payload?.cycle !== a.cycle) lost.push(`${id} cycle ${a.cycle} (seq ${a.seq}, life ${a.life}): ${e ? `seq ${a.seq} is ${e.type}` : 'not in the log'}`);
      }
    } finally {
      await reader.close();
    }
  }
  return { lost, proposals };
}
