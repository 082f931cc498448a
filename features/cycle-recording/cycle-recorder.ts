/**
 * Records one cycle: every plugin call the cycle makes goes through `call`, which puts a
 * fresh recording tape on the plugin's broker for the call's duration and keeps the call's
 * arguments, result and effects. `finish` writes the cycle's trace line durably and returns
 * what the cycle event carries (the trace hash and counts).
 *
 * Effects are kept in the order the plugin made them (the tape reserves each slot when the
 * call is made), so parallel work inside a plugin has an explicit order.
 */
import type { Tape } from '../../kernel/broker/tape.ts';
import { RecordingTape } from './tape.ts';
import { errorLine, isKernelError } from '../../kernel/errors.ts';
import { scrubber, type Scrubber } from '../secret-values/secret-values.ts';
import { scrubEffectText } from './effect-scrub.ts';
import type { PathCodec } from './path-codec.ts';
import { TRACE_FORMAT_VERSION, traceHash, type TraceBody, type TracedCall, type TracedText, type TraceRecord, type TraceSummary } from './trace-record.ts';

/**
 * Where the recorder writes: the persona's trace (features/trace-store/trace-store.ts, handed in by
 * the persona runtime). `append` returns once the line is durable: the cycle's event follows it.
 */
export interface TraceWriter {
  /** keeps a text (a bundle) in the trace's blobs; returns its digest */
  keep(text: string): string;
  /** an effect text as the trace carries it: inline when short, else a blob's digest */
  externalize(text: string): TracedText;
  /** appends the cycle's record durably */
  append(record: TraceRecord): void;
}

export interface CycleHeader {
  persona: string;
  cycle: number;
  now: number;
  /** sha256 of the profile's bytes (stored in the trace's blobs when the persona opened) */
  profile: string;
  limits: { cpu_seconds: number; wall_seconds: number };
}

/**
 * `{"ok":value}` for a result, `{"err":"line"}` for a thrown error: what a call's outcome is
 * compared by. The line leaves out where in the plugin's code it was thrown (found through a
 * source map a replaying machine may not have), so it depends on the bundle alone.
 */
export function resultText(outcome: { ok: unknown } | { err: unknown }): string {
  if ('ok' in outcome) return JSON.stringify({ ok: outcome.ok ?? null });
  return JSON.stringify({ err: isKernelError(outcome.err) ? outcome.err.toBareLine() : errorLine(outcome.err) });
}

/**
 * What can be recorded: a plugin instance, and the kernel's other callees that answer
 * through a tape (a skill script, a mounted MCP server: features/persona/tools/). `traceId` names it
 * in the trace (`plugin`), `bundle` is the code it ran (kept in the blobs), `builds` counts
 * fresh starts (an isolate built, a server started) so the trace can say `fresh`.
 */
export interface RecordedCallee {
  readonly traceId: string;
  readonly bundle: { code: string; digest: string } | undefined;
  readonly builds: number;
  readonly broker: { readonly context: { tape?: Tape } };
  call(method: string, ...args: unknown[]): Promise<unknown>;
}

export class CycleRecorder {
  readonly #store: TraceWriter;
  readonly #codec: PathCodec;
  readonly #header: CycleHeader;
  readonly #calls: TracedCall[] = [];

  readonly #scrub: Scrubber;

  /** `scrub`: the persona's secrets (by value and pattern), for the bytes inside effects; the codec scrubs the rest. */
  constructor(store: TraceWriter, codec: PathCodec, header: CycleHeader, scrub: Scrubber = scrubber()) {
    this.#store = store;
    this.#codec = codec;
    this.#header = header;
    this.#scrub = scrub;
  }

  async call(instance: RecordedCallee, method: string, args: unknown[]): Promise<unknown> {
    const tape = new RecordingTape();
    const context = instance.broker.context;
    const buildsBefore = instance.builds;
    context.tape = tape;
    let outcome: { ok: unknown } | { err: unknown };
    try {
      outcome = { ok: await instance.call(method, ...args) };
    } catch (error) {
      outcome = { err: error };
    } finally {
      delete context.tape;
    }
    this.#keep(instance, method, args, outcome, tape, instance.builds !== buildsBefore);
    if ('err' in outcome) throw outcome.err;
    return outcome.ok;
  }

  #keep(instance: RecordedCallee, method: string, args: unknown[], outcome: { ok: unknown } | { err: unknown }, tape: RecordingTape, fresh: boolean): void {
    const bundle = instance.bundle;
    // A call refused before its bundle was built (an unknown export) ran no plugin code.
    if (bundle === undefined) return;
    this.#store.keep(bundle.code);
    const text = (json: string) => this.#store.externalize(this.#codec.toRecord(json));
    this.#calls.push({
      plugin: instance.traceId,
      bundle: `sha256:${bundle.digest}`,
      fresh,
      method,
      args: text(JSON.stringify(args)),
      result: text(resultText(outcome)),
      effects: tape.effects.map((e) => ({ op: e.op, args: text(scrubEffectText(e.op, 'args', e.args, this.#scrub)), answer: text(scrubEffectText(e.op, 'answer', e.answer, this.#scrub)) })),
    });
  }

  /** The trace line (undefined when no plugin was called) and its summary, written nowhere. */
  seal(): { record: TraceRecord | undefined; summary: TraceSummary } {
    const body: TraceBody = { v: TRACE_FORMAT_VERSION, ...this.#header, calls: this.#calls };
    const hash = traceHash(body);
    let effects = 0;
    for (const call of this.#calls) effects += call.effects.length;
    return { record: this.#calls.length > 0 ? { ...body, hash } : undefined, summary: { hash, calls: this.#calls.length, effects } };
  }

  /** Writes the trace line (durably) and returns its summary for the cycle event. */
  finish(): TraceSummary {
    const { record, summary } = this.seal();
    // A cycle that called no plugin has nothing to replay: its line is not written (one
    // fsync less for every idle cycle); the event still carries the hash and `calls: 0`.
    if (record) this.#store.append(record);
    return summary;
  }
}
