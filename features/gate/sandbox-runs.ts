/**
 * Runs one built test file of the draft in the gate's sandbox, for the `gate.sandbox`
 * binding: the gate's sandbox profile and limits, what the draft's plugin.yaml declares
 * (within the ceiling) as Deno permission flags, `Deno.cwd()` the snapshot of the draft, no
 * environment, and a fresh scratch folder per test and pass, which the test gets as `Deno.args[0]` and is the only place it may write,
 * within the broker's write quota (the profile's max_scratch_bytes and max_scratch_entries:
 * the write that would pass it is refused while the test runs). Every capability decision
 * of the run is kept with it (up to a cap). Runs are one at a time, whoever asks.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { AuditEvent } from '../../kernel/broker/op.ts';
import type { TestFileRun } from '../../kernel/contracts/gate-check.ts';
import { LIMIT_CODES, type ErrorCode } from '../../kernel/errors.ts';
import { WriteQuota } from '../../kernel/broker/write-quota.ts';
import type { DraftTestOutcome } from './draft-tests.ts';
import { testFlags } from './ceiling.ts';
import { declaredPermissions } from './declared.ts';
import { MAX_AUDIT_EVENTS_PER_RUN, type GateSession } from './session.ts';

/** `<out>/scratch/<label>/<test file name>`: one folder per test and pass. */
export function scratchFor(session: GateSession, label: string, test: string): string {
  const dir = path.join(session.dirs.scratch, label, path.posix.basename(test));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** What the draft's plugin.yaml declares, within the gate's ceiling, and the run's scratch folder (ceiling.ts, testFlags). */
export function flagsFor(session: GateSession, scratch: string): string[] {
  return testFlags(session.gate.profile.ceiling, declaredPermissions(session.dirs.draft), session.dirs.draft, { plugin: session.dirs.draft, scratch }, scratch);
}

/**
 * What every run records of the broker's decisions: all of them counted, the first ones
 * kept, and every refusal kept that says something new (another permission or operation, or
 * another value, up to the cap), so a draft that floods the audit with granted calls or with
 * one refusal cannot push another kind of attempt out of the evidence.
 */
/** Characters of an audited value the evidence keeps (a path or host may be as long as the transfer cap). */
const MAX_AUDIT_VALUE = 1024;

export class AuditRecorder {
  readonly events: TestFileRun['audit'] = [];
  total = 0;
  denied = 0;
  quotaRefusals = 0;
  readonly #kept = new Set<string>();
  #keptValues = 0;

  readonly sink = (event: AuditEvent): void => {
    this.total += 1;
    if (event.decision === 'denied') this.denied += 1;
    if (event.decision === 'denied' && event.reason === 'write-quota') this.quotaRefusals += 1;
    // A value may be as long as the transfer cap: what the evidence keeps of it is bounded.
    const value = event.value !== null && event.value.length > MAX_AUDIT_VALUE ? `${event.value.slice(0, MAX_AUDIT_VALUE)}… (${event.value.length} characters)` : event.value;
    const entry = { op: event.op, permission: event.permission, value, decision: event.decision, ...(event.reason ? { reason: event.reason } : {}) };
    if (event.decision === 'denied') {
      // One of each (permission, op, reason) always; other values while the cap allows.
      const kind = `${event.permission}\u0000${event.op}\u0000${event.reason ?? ''}`;
      const key = `${kind}\u0000${value ?? ''}`;
      if (this.#kept.has(key)) return this.#keepFirst(entry);
      if (!this.#kept.has(kind)) {
        this.#kept.add(kind).add(key);
        this.events.push(entry);
        return;
      }
      if (this.#keptValues < MAX_AUDIT_EVENTS_PER_RUN) {
        this.#keptValues += 1;
        this.#kept.add(key);
        this.events.push(entry);
        return;
      }
    }
    this.#keepFirst(entry);
  };

  #keepFirst(entry: TestFileRun['audit'][number]): void {
    if (this.events.length < MAX_AUDIT_EVENTS_PER_RUN) this.events.push(entry);
  }
}

let queue: Promise<unknown> = Promise.resolve();

/** One run at a time: the runner's audit sink belongs to the run in progress. */
function serially<T>(fn: () => Promise<T>): Promise<T> {
  const next = queue.then(fn, fn);
  queue = next.catch(() => undefined);
  return next;
}

export function sandboxFailure(message: string): DraftTestOutcome {
  return { ok: false, exitCode: 1, stdout: '', stderr: `error: the sandbox failed: ${message}\n`, error: { name: 'Error', message: `the sandbox failed: ${message}` }, usage: {}, tests: [] };
}

export function runTestInSandbox(session: GateSession, test: string, pass: number): Promise<TestFileRun> {
  return serially(async () => {
    const label = `pass-${pass}`;
    const scratch = scratchFor(session, label, test);
    const permissionFlags = flagsFor(session, scratch);
    const recorder = new AuditRecorder();
    const runner = await session.runner();
    const { max_scratch_bytes: maxBytes, max_scratch_entries: maxEntries } = session.gate.profile.draft;
    let result: DraftTestOutcome;
    try {
      result = await session.withAudit(recorder.sink, () =>
        runner.run({
          file: path.join(session.dirs.draft, test),
          args: [scratch],
          permissionFlags,
          cwd: session.dirs.draft,
          env: {},
          profile: session.gate.sandbox.name,
          limits: session.gate.limits,
          writeQuota: { maxBytes, maxEntries },
        }),
      );
    } catch (error) {
      // The runner reports the draft's faults as results; a throw is the sandbox itself failing.
      result = sandboxFailure(error instanceof Error ? error.message : String(error));
    }
    // What the run left, measured (the broker refused every write past the quota while it ran).
    const left = WriteQuota.measure(scratch);
    const writes = { bytes: left.bytes, entries: left.entries - 1, refused: recorder.quotaRefusals };
    return {
      test,
      pass: label,
      scratch: path.relative(session.dirs.out, scratch),
      permission_flags: permissionFlags,
      exit_code: result.exitCode,
      ok: result.ok,
      error: result.error,
      ended_on_limit: result.error?.code !== undefined && LIMIT_CODES.has(result.error.code as ErrorCode),
      usage: result.usage,
      stdout: result.stdout,
      stderr: result.stderr,
      tests: result.tests,
      audit: recorder.events,
      audit_total: recorder.total,
      denied: recorder.denied,
      writes: { ...writes, max_bytes: maxBytes, max_entries: maxEntries },
    };
  });
}
