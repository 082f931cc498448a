/**
 * Crash safety: a child process appends events as fast as it can and prints each seq once
 * its append resolved; it is killed with SIGKILL after a random 20-300 ms. Then the log is
 * reopened here (which repairs a torn tail, if the kill tore a write), verify must pass, and
 * every acknowledged event must be on disk with the hash that was acknowledged.
 *
 * 50 trials in two lanes run side by side (one writer per trial; a lane starts the next
 * trial's writer early, and it waits, unopened, until the current trial is checked). Each
 * lane reuses its log for a few trials, so restarts on top of reboots and repairs are
 * covered too, then starts a fresh one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventLogPath, openEventLog, readEvents, verifyEventLog } from '../../kernel/events/index.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WRITER = path.join(ROOT, 'test/fixtures/events/crash-writer.ts');
const TRIALS = 50;
const LANES = 2;
const TRIALS_PER_LOG = 5;

interface TrialOutcome {
  acked: Map<number, string>;
  readySeq: number;
  killedAfterMs: number;
}

interface Writer {
  /** Resolves once the writer has loaded its modules and waits for `go`. */
  loaded: Promise<void>;
  /** Sends `go`, kills the writer a random 20-300 ms after it opened the log, resolves with what it acknowledged. */
  runAndKill(file: string): Promise<TrialOutcome>;
  /** Ends a writer that will not be used (a lane stopped on a failure). */
  discard(): void;
}

/**
 * Starts a writer process, which loads and then waits, so a lane can start the next trial's
 * writer while the current trial runs (starting node with tsx costs far more than a trial).
 */
function startWriter(): Writer {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  const killedAfterMs = 20 + Math.floor(Math.random() * 281);
  const acked = new Map<number, string>();
  let readySeq = -1;
  let buffered = '';
  let stderr = '';
  let onLoaded: () => void = () => undefined;
  const loaded = new Promise<void>((resolve) => (onLoaded = resolve));
  const exited = new Promise<TrialOutcome>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`the writer exited by itself (code ${code}, signal ${signal}): ${stderr.trim()}`));
      // A last ack line cut off by the kill was never a complete acknowledgement: only whole lines count.
      else resolve({ acked, readySeq, killedAfterMs });
    });
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      const [word, seq, hash] = line.split(' ');
      if (word === 'ack') acked.set(Number(seq), hash ?? '');
      else if (word === 'loaded') onLoaded();
      else if (word === 'ready' && readySeq === -1) {
        readySeq = Number(seq);
        setTimeout(() => child.kill('SIGKILL'), killedAfterMs);
      }
    }
  });
  return {
    loaded,
    runAndKill(file) {
      child.stdin.write(`go ${file}\n`);
      return exited;
    },
    discard() {
      exited.catch(() => undefined);
      child.kill('SIGKILL');
    },
  };
}

type Stats = { torn: number; acked: number };

/** One trial: run the writer on `file`, kill it, reopen, verify, and look for every ack. */
async function runTrial(label: string, writer: Writer, file: string, stats: Stats): Promise<void> {
  const outcome = await writer.runAndKill(file);
  const where = `${label} (killed ${outcome.killedAfterMs} ms after opening, ${outcome.acked.size} acks)`;
  assert.ok(outcome.readySeq >= 0, `${where}: the writer never opened the log`);

  // Straight after the kill: at worst a torn last line (a warning), never an error.
  const afterKill = verifyEventLog(file);
  assert.ok(afterKill.ok, `${where}: right after the kill: ${JSON.stringify(afterKill.problems)}`);
  if (afterKill.problems.some((p) => p.severity === 'warning')) stats.torn += 1;

  const log = await openEventLog(file);
  await log.close();
  const report = verifyEventLog(file);
  assert.deepEqual(report.problems, [], where);

  const onDisk = new Map<number, string>();
  for (const event of readEvents(file)) onDisk.set(event.seq, event.hash);
  for (const [seq, hash] of outcome.acked) assert.equal(onDisk.get(seq), hash, `${where}: acknowledged seq ${seq} is missing or differs`);
  stats.acked += outcome.acked.size;
}

/** Trials one after another; the next trial's writer starts loading while the current one runs. */
async function runLane(lane: number, trials: number, stateDir: string, stats: Stats): Promise<void> {
  let next: Writer | undefined = startWriter();
  try {
    for (let trial = 0; trial < trials; trial++) {
      const writer: Writer = next!;
      await writer.loaded;
      next = trial + 1 < trials ? startWriter() : undefined;
      const file = eventLogPath(stateDir, `lane-${lane}-log-${Math.floor(trial / TRIALS_PER_LOG)}`);
      await runTrial(`lane ${lane} trial ${trial}`, writer, file, stats);
    }
  } finally {
    next?.discard();
  }
}

test(`no acknowledged event is lost to SIGKILL, and the log verifies after restart (${TRIALS} trials)`, async (t) => {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  const stats: Stats = { torn: 0, acked: 0 };
  const perLane = Math.ceil(TRIALS / LANES);
  await Promise.all(Array.from({ length: LANES }, (_, lane) => runLane(lane, perLane, stateDir, stats)));
  t.diagnostic(`${perLane * LANES} kills, ${stats.acked} acknowledged events checked, ${stats.torn} torn tails repaired`);
  assert.ok(stats.acked > 0, 'the writers acknowledged events before being killed');
  fs.rmSync(stateDir, { recursive: true, force: true });
});
