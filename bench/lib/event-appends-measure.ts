/**
 * measureEventAppends: durable, hash-chained appends per second with group commit, next to the
 * raw floor of the same disk (writeSync of 100 lines + fsync, repeated), interleaved round by
 * round in this one run (rounds alternate which variant goes first), with the ack latency
 * (append() call to its promise resolving) at p50/p99 next to the disk's own fsync time.
 *
 * Next to the kernel's own EventLog (what the host-module jsonl-fs backend ran before backends
 * were isolated), the same producers append through the isolated backend plugins
 * (persistence.jsonl-fs and persistence.sqlite, each in its isolate, each batch one plugin
 * call and one storage binding op), in the same rounds.
 *
 * Producers model a busy kernel: `concurrency` loops each append one event and wait for its
 * ack before the next, so the writer sees what real callers would give it, not one giant
 * burst whose last ack would measure the whole run. Each round appends to the same log, so
 * later rounds also pay for a log that has grown.
 */
import { closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { openEventLog, type AppendResult } from '../../kernel/events/event-log.ts';
import { openBackend } from '../../features/persistence/open.ts';
import type { PersistenceBackend } from '../../kernel/contracts/persistence.ts';

export interface MeasureEventAppendsOptions {
  /** Events appended by each variant over the whole run. */
  events: number;
  /** A folder for the scratch logs (removed afterwards). */
  dir: string;
  /** Appends in flight at once (default 256). */
  concurrency?: number;
  /** Rounds the events are split into (default 5); one discarded warm-up round runs first. */
  rounds?: number;
  /** Also measure the isolated backend plugins (default true). */
  isolated?: boolean;
}

/** One isolated backend's figures, measured in the same rounds as the kernel's log. */
export interface IsolatedAppendsFigures {
  backend: string;
  eventsPerSecond: number;
  p50AckMs: number;
  p99AckMs: number;
  /** eventsPerSecond / rawFloor.eventsPerSecond */
  ratioToFloor: number;
}

export interface EventAppendsFigures {
  events: number;
  concurrency: number;
  rounds: number;
  groupCommit: {
    eventsPerSecond: number;
    p50AckMs: number;
    p99AckMs: number;
    maxAckMs: number;
    /** write+fdatasync rounds, and the mean events per round. */
    batches: number;
    meanBatch: number;
  };
  rawFloor: {
    eventsPerSecond: number;
    batchSize: number;
    fsyncs: number;
    /** The disk's own fsync time: the floor under any ack latency. */
    fsyncP50Ms: number;
    fsyncP99Ms: number;
  };
  /** groupCommit.eventsPerSecond / rawFloor.eventsPerSecond. */
  ratioToFloor: number;
  /** The isolated backends (jsonl-fs, sqlite), when measured. */
  isolated: IsolatedAppendsFigures[];
}

export interface Appender {
  append(type: string, payload: Record<string, unknown>): Promise<AppendResult>;
}

const RAW_BATCH = 100;

/** A payload shaped like a loop's usage event. */
export function samplePayload(n: number): Record<string, unknown> {
  return { cycle: n, phase: 'execute', skill: 'literature-scan', input_tokens: 1200 + (n % 97), output_tokens: 300 + (n % 13), note: 'cycle finished' };
}

export async function measureEventAppends(options: MeasureEventAppendsOptions): Promise<EventAppendsFigures> {
  const rounds = Math.max(1, Math.floor(options.rounds ?? 5));
  const perRound = Math.max(1, Math.floor(options.events / rounds));
  const events = perRound * rounds;
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 256, perRound));
  mkdirSync(options.dir, { recursive: true });
  const scratch = mkdtempSync(path.join(options.dir, 'bench-events-'));
  const log = await openEventLog(path.join(scratch, 'group', 'logs', 'events.jsonl'));
  const rawFd = openSync(path.join(scratch, 'raw.jsonl'), 'a');
  const backends: { name: string; backend: PersistenceBackend; seconds: number; acks: number[] }[] = [];
  try {
    if (options.isolated !== false) {
      for (const name of ['jsonl-fs', 'sqlite']) {
        const dir = path.join(scratch, `isolated-${name}`, 'bench');
        mkdirSync(dir, { recursive: true });
        backends.push({ name, backend: await openBackend(dir, name), seconds: 0, acks: [] });
      }
    }
    const acks: number[] = [];
    const fsyncs: number[] = [];
    let groupSeconds = 0;
    let rawSeconds = 0;
    // Warm-up: the first appends size the raw floor's lines like the real ones.
    await groupRound(log, Math.min(perRound, 2 * concurrency), concurrency, 0, []);
    for (const b of backends) await groupRound(b.backend.events, Math.min(perRound, 2 * concurrency), concurrency, 0, []);
    const line = `${'x'.repeat(lineLength(log.file) - 1)}\n`;
    const batchesBefore = log.stats.batches;
    for (let r = 0; r < rounds; r++) {
      // Every variant runs once a round; the order turns each round so none always goes first.
      const variants: (() => Promise<void>)[] = [
        async () => void (groupSeconds += await groupRound(log, perRound, concurrency, (r + 1) * perRound, acks)),
        async () => void (rawSeconds += rawRound(rawFd, perRound, line, fsyncs)),
        ...backends.map((b) => async () => void (b.seconds += await groupRound(b.backend.events, perRound, concurrency, (r + 1) * perRound, b.acks))),
      ];
      for (let i = 0; i < variants.length; i++) await variants[(i + r) % variants.length]!();
    }
    const batches = log.stats.batches - batchesBefore;
    const ackSorted = Float64Array.from(acks).sort();
    const fsyncSorted = Float64Array.from(fsyncs).sort();
    const groupRate = Math.round(events / groupSeconds);
    const rawRate = Math.round(events / rawSeconds);
    return {
      events,
      concurrency,
      rounds,
      groupCommit: {
        eventsPerSecond: groupRate,
        p50AckMs: round(percentile(ackSorted, 0.5), 3),
        p99AckMs: round(percentile(ackSorted, 0.99), 3),
        maxAckMs: round(ackSorted[ackSorted.length - 1] ?? 0, 3),
        batches,
        meanBatch: round(events / Math.max(1, batches), 1),
      },
      rawFloor: {
        eventsPerSecond: rawRate,
        batchSize: RAW_BATCH,
        fsyncs: fsyncs.length,
        fsyncP50Ms: round(percentile(fsyncSorted, 0.5), 3),
        fsyncP99Ms: round(percentile(fsyncSorted, 0.99), 3),
      },
      ratioToFloor: round(groupRate / rawRate, 3),
      isolated: backends.map((b) => {
        const sorted = Float64Array.from(b.acks).sort();
        const rate = Math.round(events / b.seconds);
        return { backend: b.name, eventsPerSecond: rate, p50AckMs: round(percentile(sorted, 0.5), 3), p99AckMs: round(percentile(sorted, 0.99), 3), ratioToFloor: round(rate / rawRate, 3) };
      }),
    };
  } finally {
    closeSync(rawFd);
    await log.close();
    for (const b of backends) await b.backend.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** `count` appends by `concurrency` producers; pushes each ack latency; returns the seconds taken. */
export async function groupRound(log: Appender, count: number, concurrency: number, firstN: number, acks: number[]): Promise<number> {
  let next = 0;
  const start = process.hrtime.bigint();
  const producer = async (): Promise<void> => {
    for (let n = next++; n < count; n = next++) {
      const t0 = process.hrtime.bigint();
      await log.append('bench.cycle', samplePayload(firstN + n));
      acks.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, producer));
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** `count` lines in writeSync batches of RAW_BATCH, each followed by fsync; returns the seconds taken. */
function rawRound(fd: number, count: number, line: string, fsyncs: number[]): number {
  const batch = Buffer.from(line.repeat(RAW_BATCH), 'utf8');
  const start = process.hrtime.bigint();
  for (let done = 0; done < count; done += RAW_BATCH) {
    const n = Math.min(RAW_BATCH, count - done);
    const bytes = n === RAW_BATCH ? batch : batch.subarray(0, n * Buffer.byteLength(line));
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    const t0 = process.hrtime.bigint();
    fsyncSync(fd);
    fsyncs.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** Mean line length of the log's first 64 KiB (past its first line), for a like-for-like floor. */
function lineLength(file: string): number {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const lines = buffer.subarray(0, read).toString('utf8').split('\n').slice(1, -1);
    if (lines.length === 0) return 256;
    return Math.round(lines.reduce((sum, l) => sum + Buffer.byteLength(l) + 1, 0) / lines.length);
  } finally {
    closeSync(fd);
  }
}

export function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
