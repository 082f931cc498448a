/**
 * benchEventAppends: durable, hash-chained appends per second with group commit, measured
 * next to the raw floor of the same disk (writeSync of 100 lines + fsync, repeated) in the
 * same run, with the ack latency (append() call to its promise resolving) at p50/p99.
 *
 * Producers model a busy kernel: `concurrency` loops each append one event and wait for its
 * ack before the next, so the writer sees what real callers would give it, not one giant
 * burst whose last ack would measure the whole run.
 */
import { closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { openEventLog } from './event-log.ts';

export interface BenchEventAppendsOptions {
  /** Events to append in each of the two measurements. */
  events: number;
  /** A folder for the scratch logs (removed afterwards unless keep is set). */
  dir: string;
  /** Appends in flight at once (default 256). */
  concurrency?: number;
  keep?: boolean;
}

export interface BenchEventAppendsResult {
  events: number;
  concurrency: number;
  groupCommit: {
    eventsPerSecond: number;
    seconds: number;
    p50AckMs: number;
    p99AckMs: number;
    maxAckMs: number;
    /** write+fdatasync rounds, and the mean events per round. */
    batches: number;
    meanBatch: number;
  };
  rawFloor: {
    eventsPerSecond: number;
    seconds: number;
    batchSize: number;
    fsyncs: number;
    /** The disk's own fsync time: the floor under any ack latency. */
    fsyncP50Ms: number;
    fsyncP99Ms: number;
  };
  /** groupCommit.eventsPerSecond / rawFloor.eventsPerSecond. */
  ratioToFloor: number;
}

/** A payload shaped like a loop's usage event. */
function samplePayload(n: number): Record<string, unknown> {
  return { cycle: n, phase: 'execute', skill: 'literature-scan', input_tokens: 1200 + (n % 97), output_tokens: 300 + (n % 13), note: 'cycle finished' };
}

export async function benchEventAppends(options: BenchEventAppendsOptions): Promise<BenchEventAppendsResult> {
  const events = Math.max(1, Math.floor(options.events));
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 256, events));
  mkdirSync(options.dir, { recursive: true });
  const scratch = mkdtempSync(path.join(options.dir, 'bench-events-'));
  try {
    const group = await measureGroupCommit(path.join(scratch, 'group', 'logs', 'events.jsonl'), events, concurrency);
    const raw = measureRawFloor(path.join(scratch, 'raw.jsonl'), events, group.sampleLine);
    return {
      events,
      concurrency,
      groupCommit: group.result,
      rawFloor: raw,
      ratioToFloor: round(group.result.eventsPerSecond / raw.eventsPerSecond, 3),
    };
  } finally {
    if (!options.keep) rmSync(scratch, { recursive: true, force: true });
  }
}

async function measureGroupCommit(file: string, events: number, concurrency: number) {
  const log = await openEventLog(file);
  const latencies = new Float64Array(events);
  let next = 0;
  const start = process.hrtime.bigint();
  const producer = async (): Promise<void> => {
    for (let n = next++; n < events; n = next++) {
      const t0 = process.hrtime.bigint();
      await log.append('bench.cycle', samplePayload(n));
      latencies[n] = Number(process.hrtime.bigint() - t0) / 1e6;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, producer));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const { batches } = log.stats;
  await log.close();
  latencies.sort();
  return {
    result: {
      eventsPerSecond: Math.round(events / seconds),
      seconds: round(seconds, 3),
      p50AckMs: round(percentile(latencies, 0.5), 3),
      p99AckMs: round(percentile(latencies, 0.99), 3),
      maxAckMs: round(latencies[latencies.length - 1] ?? 0, 3),
      batches,
      meanBatch: round(events / Math.max(1, batches), 1),
    },
    // The raw floor writes lines of the same size as the real ones.
    sampleLine: `${'x'.repeat(lineLength(file) - 1)}\n`,
  };
}

function measureRawFloor(file: string, events: number, line: string) {
  const batchSize = 100;
  const batch = Buffer.from(line.repeat(batchSize), 'utf8');
  const fd = openSync(file, 'a');
  const fsyncMs: number[] = [];
  const start = process.hrtime.bigint();
  try {
    for (let done = 0; done < events; done += batchSize) {
      const count = Math.min(batchSize, events - done);
      const bytes = count === batchSize ? batch : batch.subarray(0, count * Buffer.byteLength(line));
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
      const t0 = process.hrtime.bigint();
      fsyncSync(fd);
      fsyncMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  } finally {
    closeSync(fd);
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const sorted = Float64Array.from(fsyncMs).sort();
  return {
    eventsPerSecond: Math.round(events / seconds),
    seconds: round(seconds, 3),
    batchSize,
    fsyncs: fsyncMs.length,
    fsyncP50Ms: round(percentile(sorted, 0.5), 3),
    fsyncP99Ms: round(percentile(sorted, 0.99), 3),
  };
}

/** Mean line length of a log, for a like-for-like raw floor. */
function lineLength(file: string): number {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const read = readSyncSafe(fd, buffer);
    const text = buffer.subarray(0, read).toString('utf8');
    const lines = text.split('\n').slice(1, -1);
    if (lines.length === 0) return 256;
    return Math.round(lines.reduce((sum, l) => sum + Buffer.byteLength(l) + 1, 0) / lines.length);
  } finally {
    closeSync(fd);
  }
}

function readSyncSafe(fd: number, buffer: Buffer): number {
  try {
    return readSync(fd, buffer, 0, buffer.length, 0);
  } catch {
    return 0;
  }
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
