/**
 * The capability broker: the one door every plugin-facing host call passes through.
 * For each call it (1) checks the grant, the intersection of what was requested, what the
 * caller allows and the profile's ceiling; (2) emits an audit event for each grant and
 * each denial; and (3) performs the effect. It is also the single place where recording,
 * replay and metering hook in; no op may be reached any other way.
 */
import { kernelError } from '../errors.ts';
import { DenoOpError } from './deno-error.ts';
import type { BrokerContext, OpDefinition } from './op.ts';
import { OPS } from './ops/index.ts';
import { closeResources } from './resources.ts';

function errorAnswer(error: unknown): string {
  if (error instanceof DenoOpError) return JSON.stringify({ err: { class: error.denoClass, message: error.message, ...(error.osCode ? { code: error.osCode } : {}) } });
  throw error;
}

export class CapabilityBroker {
  readonly context: BrokerContext;
  /** count of calls per op, for metering and for tests */
  readonly calls = new Map<string, number>();

  constructor(context: BrokerContext) {
    this.context = context;
  }

  #find(name: string, mode: 'sync' | 'async'): OpDefinition {
    const op = OPS.get(name);
    if (!op) throw kernelError('RTC_ERR_BROKER_UNKNOWN_OP', `no broker operation "${name}"`, { details: { op: name } });
    if (op.mode !== mode) throw kernelError('RTC_ERR_BROKER_BAD_ARGS', `broker operation "${name}" is ${op.mode}, called as ${mode}`);
    return op;
  }

  /** Parses arguments and checks every permission the call needs; audits each decision. */
  #admit(op: OpDefinition, argsJson: string): unknown {
    let raw: unknown;
    try {
      raw = JSON.parse(argsJson);
    } catch {
      throw new DenoOpError('TypeError', `${op.name}: arguments are not JSON`);
    }
    const args = op.parse(raw, this.context);
    for (const need of op.needs(args, this.context)) {
      try {
        const viaAlternative = need.alternatives?.some((alt) => this.context.gate.query(need.kind, alt).state === 'granted') ?? false;
        if (!viaAlternative) this.context.gate.check(need.kind, need.value, need.display ?? need.value);
      } catch (error) {
        if (need.message && error instanceof DenoOpError) error = new DenoOpError(error.denoClass, need.message);
        this.context.audit({ type: 'capability', subject: this.context.subject, op: op.name, permission: need.kind, value: need.value ?? null, decision: 'denied' });
        throw error;
      }
      this.context.audit({ type: 'capability', subject: this.context.subject, op: op.name, permission: need.kind, value: need.value ?? null, decision: 'granted' });
    }
    this.calls.set(op.name, (this.calls.get(op.name) ?? 0) + 1);
    return args;
  }

  sync(name: string, argsJson: string): string {
    const tape = this.context.tape;
    if (tape?.mode === 'replay') return this.#replay(name, argsJson, 'sync');
    const fill = tape?.begin(name, argsJson);
    let answer: string;
    try {
      const op = this.#find(name, 'sync');
      const args = this.#admit(op, argsJson);
      answer = JSON.stringify({ ok: op.run(args, this.context) ?? null });
    } catch (error) {
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
    try {
      this.#admit(this.#find(name, mode), argsJson);
    } catch (error) {
      if (!(error instanceof DenoOpError)) throw error;
    }
    return this.context.tape!.answer(name, argsJson);
  }

  /** Closes what the sandboxed code still holds (open files, children, fetch bodies): the end of its run. */
  close(): void {
    closeResources(this.context);
  }

  /** Runs an op by its own mode; for callers that cannot tell (the process tier's pipe). */
  async any(name: string, argsJson: string): Promise<string> {
    return OPS.get(name)?.mode === 'sync' ? this.sync(name, argsJson) : this.async(name, argsJson);
  }

  async async(name: string, argsJson: string): Promise<string> {
    const tape = this.context.tape;
    if (tape?.mode === 'replay') return this.#replay(name, argsJson, 'async');
    const fill = tape?.begin(name, argsJson);
    let answer: string;
    try {
      const op = this.#find(name, 'async');
      const args = this.#admit(op, argsJson);
      answer = JSON.stringify({ ok: (await op.run(args, this.context)) ?? null });
    } catch (error) {
      answer = errorAnswer(error);
    }
    fill?.(answer);
    return answer;
  }
}
