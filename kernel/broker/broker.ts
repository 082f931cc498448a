/**
 * The capability broker: the one door every plugin-facing host call passes through.
 * For each call it (1) checks the grant, the intersection of what was requested, what the
 * caller allows and the profile's ceiling; (2) emits an audit event for each check, granted
 * or denied; and (3) performs the effect. It is also the single place where recording,
 * replay and metering hook in; no op may be reached any other way.
 *
 * Auditing is structural: a check that passes is audited where it is made (the needs loop
 * below, or `OpCall.require` for checks an op makes while it runs); every refusal is a
 * `Refusal` (kernel/broker/refusal.ts), whoever raised it, and is audited here, once, where
 * the call's answer is made. An op cannot refuse without the audit seeing it.
 *
 * Attempts are audited too, whatever answered them: a call that ends without a decision on
 * something it attempted (its arguments did not parse, the program was not found, a quota
 * answered first) has that attempt audited where its answer is made, before the answer
 * leaves (`#settle`, attempts.ts). An op cannot answer an attempt without the audit seeing it.
 */
import { kernelError } from '../errors.ts';
import { notCapableMessage } from '../permissions/gate.ts';
import { DenoOpError } from './deno-error.ts';
import type { BrokerContext, OpCall, OpDefinition } from './op.ts';
import type { OpTable } from './extension.ts';
import { closeResources } from './resources.ts';
import { Refusal, type AuditPermission, type RefusalReason } from './refusal.ts';
import type { OpTicket } from './run-scope.ts';
import { isSpecialPath } from './special-paths.ts';
import { attemptGranted, rawObject, reportedAttempts, type Attempt } from './attempts.ts';
import type { PermissionName } from '../permissions/descriptors.ts';

/** The checks one call of an op may make while it runs; each passing check is audited (one object per call). */
class Call implements OpCall {
  readonly #ctx: BrokerContext;
  readonly op: string;
  /** the op charges the run's write quota itself (OpDefinition.quota) */
  readonly #quotaAware: boolean;
  ticket?: OpTicket;
  /** what this call has had audited, granted or denied: an attempt among them needs no audit of its own */
  readonly audited: { permission: AuditPermission; value: string | null; reason?: RefusalReason }[] = [];

  constructor(ctx: BrokerContext, op: string, quotaAware: boolean) {
    this.#ctx = ctx;
    this.op = op;
    this.#quotaAware = quotaAware;
  }

  granted(permission: AuditPermission, value: string | null, reason?: RefusalReason): void {
    const ctx = this.#ctx;
    this.audited.push({ permission, value });
    ctx.audit({ type: 'capability', subject: ctx.subject, op: this.op, permission, value, decision: 'granted', ...(reason ? { reason } : {}) });
  }

  denied(permission: AuditPermission, value: string | null, reason: RefusalReason): void {
    const ctx = this.#ctx;
    this.audited.push({ permission, value, reason });
    ctx.audit({ type: 'capability', subject: ctx.subject, op: this.op, permission, value, decision: 'denied', reason });
  }

  attempted(attempt: Attempt, reason: RefusalReason): void {
    if (attemptGranted(this.#ctx, attempt)) this.granted(attempt.kind, attempt.value ?? null, reason);
    else this.denied(attempt.kind, attempt.value ?? null, reason);
  }

  /**
   * Whether `attempt` was decided in this call: a decision on the same value or on the whole
   * kind, or a refusal of the call for its loader variables (which names them, not the program).
   */
  covers(attempt: Attempt): boolean {
    return this.audited.some((a) => a.permission === attempt.kind && (a.value === null || attempt.value === undefined || a.value === attempt.value || a.reason === 'loader-variable'));
  }

  require(kind: PermissionName, value: string | undefined, display = value, reason?: RefusalReason, aliases?: readonly string[]): void {
    try {
      this.#ctx.gate.check(kind, value, display, aliases);
    } catch (error) {
      if (error instanceof Refusal && reason) throw new Refusal(error.permission, error.value, error.message, reason);
      throw error;
    }
    // A write quota holds only ops that charge it: any other op that writes, or starts a
    // process (which writes with its own system calls), fails closed while one is set.
    if (this.#ctx.scope.writes && !this.#quotaAware && (kind === 'write' || kind === 'run')) {
      throw new Refusal(kind, value ?? null, `${this.op} is not available in a run with a write quota: it could write past it`, 'write-quota');
    }
    this.granted(kind, value ?? null, reason);
  }

  requireAll(display: string, reason: RefusalReason = 'special-file'): void {
    if (!this.#ctx.gate.allowsAll()) throw new Refusal('all', display, notCapableMessage('all', display), reason);
    this.granted('all', display, reason);
  }

  refuse(permission: AuditPermission, value: string | null, message: string, reason: RefusalReason): never {
    throw new Refusal(permission, value, message, reason);
  }
}

/**
 * How Deno 2.9.6 names a special path in its refusal (measured): as written when it is
 * absolute with no `.` or `..` part and no trailing slash (`//proc/x` stays), else normalized.
 */
function specialDisplay(given: string | undefined, abs: string): string {
  if (!given?.startsWith('/') || given.endsWith('/') || given.split('/').some((part) => part === '.' || part === '..')) return abs;
  return given;
}

/**
 * Two reports of attempts that no effect op answers, made by the runtime and the shim and
 * audited here like any call (attempts.ts). Neither performs anything, and neither is an
 * effect, so neither is on the tape (a replay makes the same reports and audits the same):
 *  - `attempt.unanswered` `{op, args, why}`: the runtime answered a call itself (the script
 *    had exited; its arguments passed the transfer cap); its attempts are audited with `why`;
 *  - `attempt.unsupported` `{api, attempts | op+args}`: an API the sandbox does not implement
 *    that Deno gates behind a permission (`Deno.connect` is `net`, `Deno.dlopen` is `ffi`,
 *    `Deno.kill` is `run`...). Answered as Deno answers without the grant (NotCapable naming
 *    the first attempt not granted), else NotSupported (RTC_ERR_UNSUPPORTED); every attempt is
 *    audited as denied, under the API's name.
 */
export const UNANSWERED_OP = 'attempt.unanswered';
export const UNSUPPORTED_OP = 'attempt.unsupported';
const UNANSWERED_REASONS: ReadonlySet<string> = new Set<RefusalReason>(['before-check', 'after-exit', 'limit']);

function errorAnswer(error: unknown): string {
  if (error instanceof DenoOpError) return JSON.stringify({ err: { class: error.denoClass, message: error.message, ...(error.osCode ? { code: error.osCode } : {}) } });
  throw error;
}

export class CapabilityBroker {
  readonly context: BrokerContext;
  /** the ops this broker answers: the persona's bindings and the extensions the composition handed in (extension.ts) */
  readonly ops: OpTable;
  /** count of calls per op, for metering and for tests */
  readonly calls = new Map<string, number>();

  constructor(context: BrokerContext, ops: OpTable) {
    this.context = context;
    this.ops = ops;
  }

  #find(name: string, mode: 'sync' | 'async'): OpDefinition {
    const op = this.ops.get(name);
    if (!op) throw kernelError('RTC_ERR_BROKER_UNKNOWN_OP', `no broker operation "${name}"`, { details: { op: name } });
    if (op.mode !== mode) throw kernelError('RTC_ERR_BROKER_BAD_ARGS', `broker operation "${name}" is ${op.mode}, called as ${mode}`);
    return op;
  }

  #call(op: string): Call {
    return new Call(this.context, op, this.ops.get(op)?.quota === true);
  }

  /** The one place a refusal is audited. */
  #audited(op: string, error: unknown, call?: Call): unknown {
    if (error instanceof Refusal) {
      const ctx = this.context;
      call?.audited.push({ permission: error.permission, value: error.value, ...(error.reason ? { reason: error.reason } : {}) });
      ctx.audit({ type: 'capability', subject: ctx.subject, op, permission: error.permission, value: error.value, decision: 'denied', ...(error.reason ? { reason: error.reason } : {}) });
    }
    return error;
  }

  /**
   * A call is answered with something other than its effect: each attempt it made that no
   * check of the call decided is audited now, before the answer leaves (attempts.ts):
   * `denied` unless the live grant covers it, with `why` no check was made.
   */
  #settle(name: string, argsJson: string, call: Call, why: RefusalReason): void {
    const op = this.ops.get(name);
    if (!op?.attempts) return;
    let attempts: Attempt[];
    try {
      let raw: unknown;
      try {
        raw = JSON.parse(argsJson);
      } catch {
        raw = undefined;
      }
      attempts = op.attempts(rawObject(raw), this.context);
    } catch {
      // Fail closed: an op whose attempts cannot be read is audited as refused outright.
      call.denied('all', name, why);
      return;
    }
    for (const attempt of attempts) if (!call.covers(attempt)) call.attempted(attempt, why);
  }

  /** Parses arguments and checks every permission the call needs; audits each grant. */
  #admit(op: OpDefinition, argsJson: string, call: OpCall): unknown {
    let raw: unknown;
    try {
      raw = JSON.parse(argsJson);
    } catch {
      throw new DenoOpError('TypeError', `${op.name}: arguments are not JSON`);
    }
    const args = op.parse(raw, this.context);
    for (const need of op.needs(args, this.context)) {
      try {
        call.require(need.kind, need.value, need.display ?? need.value, undefined, need.aliases);
      } catch (error) {
        // Deno words a few refusals its own way (symlink's unscoped check, makeTemp's <TMP>).
        if (need.message && error instanceof Refusal) throw new Refusal(error.permission, error.value, need.message, error.reason);
        throw error;
      }
      // Deno: anything under /proc, /sys, /dev (but a few devices) also needs --allow-all.
      if ((need.kind === 'read' || need.kind === 'write') && need.value !== undefined && isSpecialPath(need.value)) call.requireAll(specialDisplay(need.display, need.value));
    }
    op.admit?.(args, this.context, call);
    this.calls.set(op.name, (this.calls.get(op.name) ?? 0) + 1);
    return args;
  }

  /** The answer to a report of attempts (UNANSWERED_OP, UNSUPPORTED_OP); undefined for any other op. */
  #report(name: string, argsJson: string): string | undefined {
    if (name !== UNANSWERED_OP && name !== UNSUPPORTED_OP) return undefined;
    let raw: Record<string, unknown>;
    try {
      raw = rawObject(JSON.parse(argsJson));
    } catch {
      raw = {};
    }
    const opName = typeof raw.op === 'string' ? raw.op : undefined;
    const args = JSON.stringify(raw.args ?? {});
    if (name === UNANSWERED_OP) {
      const why = typeof raw.why === 'string' && UNANSWERED_REASONS.has(raw.why) ? (raw.why as RefusalReason) : 'before-check';
      if (opName) this.#settle(opName, args, this.#call(opName), why);
      return JSON.stringify({ ok: null });
    }
    const api = typeof raw.api === 'string' && raw.api.length <= 100 ? raw.api : 'an unsupported API';
    const call = new Call(this.context, api, false);
    const attempts = reportedAttempts(raw, opName === undefined ? undefined : this.ops.get(opName)?.attempts, this.context);
    let refusal: Refusal | undefined;
    for (const attempt of attempts) {
      // Refused either way: not granted (Deno's own NotCapable), or granted but not implemented here.
      call.denied(attempt.kind, attempt.value ?? null, 'unsupported');
      if (!attemptGranted(this.context, attempt) && attempt.kind !== 'binding') refusal ??= new Refusal(attempt.kind, attempt.value ?? null, notCapableMessage(attempt.kind, attempt.value));
    }
    const hint = typeof raw.hint === 'string' && raw.hint.length <= 300 ? ` (${raw.hint})` : '';
    return errorAnswer(refusal ?? new DenoOpError('NotSupported', `RTC_ERR_UNSUPPORTED: ${api} is not supported in the sandbox${hint}; see docs/sandbox.md, "What the sandbox supports"`));
  }

  sync(name: string, argsJson: string): string {
    const reported = this.#report(name, argsJson);
    if (reported !== undefined) return reported;
    const tape = this.context.tape;
    if (tape?.mode === 'replay') return this.#replay(name, argsJson, 'sync');
    const fill = tape?.begin(name, argsJson);
    let answer: string;
    const call = this.#call(name);
    try {
      const op = this.#find(name, 'sync');
      const args = this.#admit(op, argsJson, call);
      answer = JSON.stringify({ ok: op.run(args, this.context, call) ?? null });
    } catch (error) {
      this.#audited(name, error, call);
      this.#settle(name, argsJson, call, 'before-check');
      answer = errorAnswer(error);
    }
    fill?.(answer);
    return answer;
  }

  /**
   * Replay: the permission check and audit run as they did, then the recorded answer is
   * returned and no effect happens. A divergence is thrown as a KernelError; it ends the
   * call, and the replay command reports it.
   */
  #replay(name: string, argsJson: string, mode: 'sync' | 'async'): string {
    const call = this.#call(name);
    try {
      this.#admit(this.#find(name, mode), argsJson, call);
    } catch (error) {
      this.#audited(name, error, call);
      this.#settle(name, argsJson, call, 'before-check');
      if (!(error instanceof DenoOpError)) throw error;
    }
    const answer = this.context.tape!.answer(name, argsJson);
    // The checks an op made while it ran (env.toObject's, a request's) are not made again:
    // what the call attempted is audited from the grant instead, so a replay's audit has it too.
    this.#settle(name, argsJson, call, 'replayed');
    return answer;
  }

  /** Closes what the sandboxed code still holds (open files, children, fetch bodies): the end of its run. */
  close(): void {
    closeResources(this.context);
  }

  /** Runs an op by its own mode; for callers that cannot tell (the process tier's pipe). See OpHandler.any for `deliver`. */
  async any(name: string, argsJson: string, deliver?: (answer: string) => Promise<void>): Promise<string> {
    if (this.ops.get(name)?.mode === 'sync') {
      const answer = this.sync(name, argsJson);
      await deliver?.(answer);
      return answer;
    }
    return this.async(name, argsJson, deliver);
  }

  async async(name: string, argsJson: string, deliver?: (answer: string) => Promise<void>): Promise<string> {
    const reported = this.#report(name, argsJson);
    if (reported !== undefined) {
      await deliver?.(reported);
      return reported;
    }
    const tape = this.context.tape;
    if (tape?.mode === 'replay') {
      const recorded = this.#replay(name, argsJson, 'async');
      await deliver?.(recorded);
      return recorded;
    }
    const fill = tape?.begin(name, argsJson);
    let answer: string;
    let ticket: OpTicket | undefined;
    const call = this.#call(name);
    try {
      try {
        const op = this.#find(name, 'async');
        const args = this.#admit(op, argsJson, call);
        if (op.scoped) call.ticket = ticket = await this.context.scope.enter(name);
        answer = JSON.stringify({ ok: (await op.run(args, this.context, call)) ?? null });
      } catch (error) {
        this.#audited(name, error, call);
        this.#settle(name, argsJson, call, 'before-check');
        answer = errorAnswer(error);
      }
      fill?.(answer);
      await deliver?.(answer);
    } finally {
      ticket?.done();
    }
    return answer;
  }

  /**
   * The run (or the plugin call) this broker served has ended: every op still in flight is
   * aborted (connections closed, subprocess groups killed) and a fresh scope begins.
   */
  endScope(): void {
    this.context.scope.end();
  }
}
