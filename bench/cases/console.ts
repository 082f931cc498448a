/**
 * Case: the operator's console over a fleet with a year of history each (issue 17;
 * bench/lib/console-fleet.ts says how the fleet is built and what it holds). In the same run,
 * interleaved round by round:
 *
 *   - the overview page, GET / over loopback from the running console (server time plus a
 *     loopback round trip), and the same rows read in process (fleetRows);
 *   - reading the same data with the CLI: `runtimectl status` as its own process, and its
 *     reader (readStatus) in process.
 *
 * Then the latency from a new event appended by the real appender to its arrival on an open
 * page's stream (SSE on the whole fleet). Targets: overview < 300 ms, new event to page < 1 s.
 * The persona count is 100 (RUNTIMECTL_BENCH_CONSOLE_PERSONAS overrides it; --quick: 3).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { consoleFleet, resetConsoleFleet } from '../lib/console-fleet.ts';
import { benchEnv } from '../lib/history-persona.ts';
import { interleave } from '../lib/interleave.ts';
import { timeRow, verdict, type ResultRow } from '../lib/result-row.ts';
import type { BenchContext } from '../lib/setup.ts';
import { summarize } from '../lib/stats.ts';
import { startConsole } from '../../features/console/server.ts';
import { fleetRows } from '../../features/console/fleet.ts';
import { readStatus } from '../../features/status/status.ts';
import { openBackend } from '../../features/persistence/open.ts';

function runtimectl(args: string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', path.join(PROJECT_ROOT, 'bin', 'runtimectl.js'), ...args], { env, cwd: PROJECT_ROOT, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}

export async function consoleCase(ctx: BenchContext): Promise<ResultRow[]> {
  const personas = ctx.quick ? 3 : Number(process.env.RUNTIMECTL_BENCH_CONSOLE_PERSONAS ?? 100);
  ctx.log(`  console: building (or reusing) ${personas} personas with a year of history each under bench/out`);
  const built = await consoleFleet({ outDir: path.join(PROJECT_ROOT, 'bench', 'out'), personas, cacheDir: ctx.cacheDir, log: ctx.log });
  ctx.log(`  console: ${built.reused ? 'reused' : `built in ${built.buildSeconds.toFixed(0)} s`}: ${personas} personas, ${built.eventsPerPersona.toLocaleString('en-US')} events and ${built.sealedSegmentsPerPersona} sealed segments each, ${(built.bytesOnDisk / 1e6).toFixed(0)} MB`);
  resetConsoleFleet(built);
  const state = built.stateDir;
  // One console re-reads every persona for every page (as when each appended since the last
  // page: a fleet cycling every minute, a page every minute); one keeps unchanged rows.
  const server = await startConsole({ stateDir: state, port: 0, cacheRows: false });
  const cached = await startConsole({ stateDir: state, port: 0 });
  const env = { ...benchEnv(ctx.tmp), ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}) };
  const caseName = `console overview: ${personas} personas × a year of history (${built.eventsPerPersona.toLocaleString('en-US')} events, ${built.sealedSegmentsPerPersona} sealed segments each)`;
  let rendered = 0;
  try {
    const variants = [
      {
        name: 'overview page (GET /)',
        async run() {
          const res = await fetch(`${server.url}/`);
          const text = await res.text();
          if (res.status !== 200) throw new Error(`GET / answered ${res.status}`);
          rendered = (text.match(/<tr id="fleet-/g) ?? []).length;
        },
      },
      {
        name: 'overview page, no persona changed (GET /, rows kept)',
        async run() {
          const res = await fetch(`${cached.url}/`);
          await res.text();
          if (res.status !== 200) throw new Error(`GET / answered ${res.status}`);
        },
      },
      { name: 'fleet rows in process (fleetRows)', run: () => fleetRows(state, { nowMs: Date.now(), staleAfterMs: 3_600_000 }) },
      { name: 'status, in process (readStatus)', run: () => readStatus(state, Date.now()) },
      { name: '`runtimectl status` (own process)', run: () => runtimectl(['status', '--state-dir', state], env), every: 2 },
    ];
    const rounds = ctx.quick ? 2 : 5;
    const samples = await interleave(variants, { warmup: 1, rounds });
    if (rendered !== personas) throw new Error(`the overview showed ${rendered} of ${personas} personas`);

    // New event to page: an SSE stream on the whole fleet, an event appended by the real appender.
    const latencies: number[] = [];
    const controller = new AbortController();
    const res = await fetch(`${server.url}/events`, { signal: controller.signal });
    const reader = res.body!.getReader();
    let buffer = '';
    const waitFor = async (needle: string) => {
      while (!buffer.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended');
        buffer += Buffer.from(value).toString('utf8');
      }
    };
    await waitFor('event: ready');
    const target = built.personas[Math.floor(personas / 2)]!;
    const backend = await openBackend(path.join(state, target), undefined, { personaId: target });
    try {
      for (let i = 0; i < (ctx.quick ? 3 : 10); i++) {
        buffer = '';
        // From the moment the event is in the log (the append resolved: written and synced).
        const e = await backend.events.append('operator_note', { note: `bench ${i}` });
        const t0 = performance.now();
        await waitFor(`"seq":${e.seq},"type":"operator_note"`);
        latencies.push(performance.now() - t0);
      }
    } finally {
      await backend.close();
      controller.abort();
    }
    const page = summarize(samples.get('overview page (GET /)')!);
    const warm = summarize(samples.get('overview page, no persona changed (GET /, rows kept)')!);
    const rows = summarize(samples.get('fleet rows in process (fleetRows)')!);
    const status = summarize(samples.get('status, in process (readStatus)')!);
    const cli = summarize(samples.get('`runtimectl status` (own process)')!);
    const latency = summarize(latencies);
    const why = `${(rows.median / personas).toFixed(0)} ms a persona. Each persona's row opens its history read-only and reads its open segment record by record (up to a day of events at one a minute) and, for the 24-hour figures, the one sealed segment the window straddles (yesterday's, decompressed and read event by event); the sealed year costs its index and rollup lines only. What would close it: a console that keeps each persona's figures and follows its new events (the live stream already reads them) instead of re-reading the open segment for every page, and a read of the 24-hour edge from the checkpoint's minute-exact usage window rather than the raw segment.`;
    return [
      timeRow({ case: caseName, variant: 'overview page, every persona re-read (GET /, server time + loopback)', role: 'project', summary: page, floor: rows, unit: 'ms', target: '< 300 ms', verdict: verdict(page.median < 300), note: `the whole page for ${personas} personas (rows, budget posture, 24 h and 7 d charts of hourly buckets), fetched from the running console; ratio = median / the rows read in process. ${rounds} rounds interleaved.`, whyMissed: why }),
      timeRow({ case: caseName, variant: 'overview page, no persona changed since the last page (rows kept)', role: 'project', summary: warm, floor: rows, unit: 'ms', target: '< 300 ms', verdict: verdict(warm.median < 300), note: 'the same page from a console that keeps the rows of personas whose history files (inode, size, mtime) did not change within the minute: a few stats a persona, then the HTML', whyMissed: 'rendering the page (two SVG charts a persona) under this load.' }),
      timeRow({ case: caseName, variant: 'the same rows in process (fleetRows)', role: 'floor', summary: rows, unit: 'ms', note: 'the read path alone: summary and 7 days of hourly buckets for each persona, no HTML' }),
      timeRow({ case: caseName, variant: 'CLI: status, in process (readStatus)', role: 'alternative', summary: status, unit: 'ms', note: 'what `runtimectl status` reads (the status rows, no charts), in this process' }),
      timeRow({ case: caseName, variant: 'CLI: `runtimectl status` (own process)', role: 'alternative', summary: cli, unit: 'ms', note: 'as an operator runs it: node start-up included, every other round' }),
      timeRow({ case: caseName, variant: 'a new event to an open page (SSE)', role: 'project', summary: latency, unit: 'ms', target: '< 1 s', verdict: verdict(latency.median < 1000), note: `from an event's append by the real appender (resolved: written and synced) to ${target}'s log until it arrives on a stream open on the whole fleet (the console looks every 250 ms: stats of ${personas} personas' files, a read of the one that changed); ${latencies.length} events.`, whyMissed: 'the poll interval (250 ms) plus the read of the changed persona\'s open segment under this load.' }),
    ];
  } finally {
    await server.close();
    await cached.close();
  }
}
