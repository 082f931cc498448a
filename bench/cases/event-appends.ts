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
      note: `${r.events} events in one run (a rate, not a median); ack latency p50 ${r.groupCommit.p50AckMs} ms, p99 ${r.groupCommit.p99AckMs} ms; ${r.groupCommit.batches} write+fdatasync rounds of ${r.groupCommit.meanBatch} events on average.`,
      whyMissed: `the group-commit writer reached ${rate.toLocaleString('en-US')} events/s against ${r.rawFloor.eventsPerSecond.toLocaleString('en-US')} for raw writeSync + fsync in batches of ${r.rawFloor.batchSize}; the cost per event is redaction, canonical JSON and the sha256 chain on the one JS thread. Closing it: hash and serialize in larger batches or off the main thread.`,
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
