/**
 * The effect tapes: the broker's record of every answer it gave a plugin during a cycle.
 * Recording appends (op, arguments, answer) in call order; replay answers each call from
 * the tape instead of the world and stops at the first call that differs from the record,
 * naming the index, what was recorded and what the code asked for (as Temporal names a
 * non-deterministic workflow). Permission checks and audit run the same way in both.
 * Both implement the kernel's `Tape` port (kernel/broker/tape.ts), the one the broker calls.
 */
import { kernelError, type KernelError } from '../../kernel/errors.ts';
import type { Tape } from '../../kernel/broker/tape.ts';

export interface Effect {
  /** position in the cycle's call order */
  i: number;
  op: string;
  /** the arguments as the isolate sent them (JSON text) */
  args: string;
  /** the broker's answer (JSON text: `{"ok":...}` or `{"err":...}`) */
  answer: string;
}

export class RecordingTape implements Tape {
  readonly mode = 'record';
  readonly effects: Effect[] = [];

  answer(): string {
    throw new Error('a recording tape does not answer');
  }

  begin(op: string, args: string): (answer: string) => void {
    const effect: Effect = { i: this.effects.length, op, args, answer: '' };
    this.effects.push(effect);
    return (answer) => {
      effect.answer = answer;
    };
  }
}

export class ReplayTape implements Tape {
  readonly mode = 'replay';
  readonly #effects: readonly Effect[];
  readonly #where: string;
  readonly #normalize: (args: string, op: string) => string;
  #next = 0;

  /**
   * `where` names the recording in errors, e.g. `persona-jerome cycle 12`; `normalize` turns
   * the arguments the code asks with into the recording's form (host paths as placeholders).
   */
  constructor(effects: readonly Effect[], where: string, options: { normalize?: (args: string, op: string) => string } = {}) {
    this.#effects = effects;
    this.#where = where;
    this.#normalize = options.normalize ?? ((args) => args);
  }

  /** the first divergence, kept even if the plugin caught the error thrown into it */
  divergence: KernelError | undefined;

  get consumed(): number {
    return this.#next;
  }

  get remaining(): number {
    return this.#effects.length - this.#next;
  }

  answer(op: string, asked: string): string {
    if (this.divergence) throw this.divergence;
    const args = this.#normalize(asked, op);
    const index = this.#next;
    const recorded = this.#effects[index];
    if (!recorded) {
      throw (this.divergence = kernelError('RTC_ERR_REPLAY_DIVERGED', `${this.#where}: effect ${index}: the recording has no more effects, but the code asked for ${op} ${truncate(args)}`, { details: { index, expected: null, got: { op, args } } }));
    }
    if (recorded.op !== op || recorded.args !== args) {
      throw (this.divergence = kernelError('RTC_ERR_REPLAY_DIVERGED', `${this.#where}: effect ${index}: recorded ${recorded.op} ${truncate(recorded.args)}, but the code asked for ${op} ${truncate(args)}`, { details: { index, expected: { op: recorded.op, args: recorded.args }, got: { op, args } } }));
    }
    this.#next++;
    return recorded.answer;
  }

  begin(): never {
    throw new Error('a replay tape does not record');
  }
}

function truncate(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
