/**
 * Case 4: durable hash-chained event appends, group commit, next to raw writeSync + fsync in
 * batches of 100. Both figures come from kernel/events/bench.ts (benchEventAppends), which
 * measures them one after the other in this same process.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { notYet, verdict, type ResultRow } from '../lib/result-row.ts';
import type { BenchContext } from '../lib/setup.ts';

const CASE = 'durable hash-chained event appends';
const TARGET = '≥ 50,000 events/s';

interface EventBenchModule {
  benchEventAppends(options: { events: number; dir: string }): Promise<{
    events: number;
    concurrency: number;
    groupCommit: { eventsPerSecond: number; p50AckMs: number; p99AckMs: number; batches: number; meanBatch: number };
    rawFloor: { eventsPerSecond: number; batchSize: number; fsyncP50Ms: number; fsyncP99Ms: number };
    ratioToFloor: number;
  }>;
}

type EventFigures = Awaited<ReturnType<EventBenchModule['benchEventAppends']>>;

/** Why the append rate missed, from this run's own figures. */
function eventsMiss(r: EventFigures): string {
  const rate = r.groupCommit.eventsPerSecond;
  const floor = r.rawFloor.eventsPerSecond;
  const batch = r.groupCommit.meanBatch;
  const roundMs = (batch / rate) * 1000;
  const fsyncMs = r.rawFloor.fsyncP50Ms;
  const head = `group commit reached ${rate.toLocaleString('en-US')} events/s, ${r.ratioToFloor}x the raw floor's ${floor.toLocaleString('en-US')} events/s (writeSync + fsync per ${r.rawFloor.batchSize} events). Each write+fdatasync round carried ${batch} events on average (at most the ${r.concurrency} appenders in flight) and took about ${roundMs.toFixed(1)} ms, against ${fsyncMs} ms for this disk's fsync (p50).`;
  if (roundMs > 1.5 * fsyncMs) {
    return `${head} So about ${(roundMs - fsyncMs).toFixed(1)} ms of each round is not the disk: it is the per-event work on the one JS thread (redaction, canonical JSON, the sha256 chain, resolving each ack and taking the next append). What would close it: cut that per-event work (serialize and hash in one pass per batch), prepare the next batch while the current fdatasync runs, and allow more appenders in flight (with ${r.concurrency} in flight, a round can never carry more than ${r.concurrency} events).`;
  }
  return `${head} The disk's flush bounds it: 50,000 events/s needs about ${Math.ceil((50_000 * fsyncMs) / 1000)} events per fsync. What would close it: more appends per fsync (more appenders in flight, or a short gathering window before each sync), or a disk with faster flushes; not less durability.`;
}

export async function eventAppends(ctx: BenchContext): Promise<ResultRow[]> {
  const file = path.join(PROJECT_ROOT, 'kernel', 'events', 'bench.ts');
  if (!existsSync(file)) return [notYet(CASE, 'group commit', TARGET, 'issue 4', 'kernel/events/bench.ts is not there yet')];
  // Imported by path at run time, so the bench still runs on a tree where it does not exist yet.
  const mod = (await import(pathToFileURL(file).href)) as EventBenchModule;
  const events = ctx.quick ? 20_000 : 100_000;
  ctx.log(`  event appends: ${events} events`);
  const r = await mod.benchEventAppends({ events, dir: ctx.tmp });
  const rate = r.groupCommit.eventsPerSecond;
  return [
    {
      case: CASE,
      variant: `group commit (${r.concurrency} appenders awaiting acks)`,
      role: 'project',
      unit: 'events/s',
      median: rate,
      ratio: r.ratioToFloor,
      target: TARGET,
      verdict: verdict(rate >= 50_000),
      note: `${r.events} events in one run (a rate, not a median), measured by kernel/events/bench.ts just before its raw floor (one after the other, not interleaved); ack latency p50 ${r.groupCommit.p50AckMs} ms, p99 ${r.groupCommit.p99AckMs} ms; ${r.groupCommit.batches} write+fdatasync rounds of ${r.groupCommit.meanBatch} events on average.`,
      whyMissed: eventsMiss(r),
    },
    {
      case: CASE,
      variant: `raw writeSync + fsync, batches of ${r.rawFloor.batchSize}`,
      role: 'floor',
      unit: 'events/s',
      median: r.rawFloor.eventsPerSecond,
      note: `lines of the same size; this disk's fsync p50 ${r.rawFloor.fsyncP50Ms} ms, p99 ${r.rawFloor.fsyncP99Ms} ms.`,
    },
  ];
}
