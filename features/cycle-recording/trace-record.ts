/**
 * One line of a persona's trace (`<persona>/trace/cycles.jsonl`): what one cycle's plugins
 * were asked and what the world answered them, in call order. Every plugin call of the cycle
 * is here with its bundle digest, its arguments, its result and the broker effects it made
 * (clock, randomness, env, files, commands, fetches, bindings). Texts larger than
 * INLINE_LIMIT bytes are stored by content digest in `trace/blobs/`, not inline.
 *
 * Host paths are written as `<state>` and `<runtimectl>` (path-codec.ts), so the same
 * inputs give the same bytes in any state directory. The line's `hash` (sha256 of the
 * canonical JSON of everything else) is also written into the cycle's event, so the
 * event log's hash chain covers the trace.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../../kernel/events/canonical.ts';

export const TRACE_FORMAT_VERSION = 1;
/** Texts above this many bytes go to a blob (a file read, a command's output, a bundle). */
export const INLINE_LIMIT = 4096;

const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/);
/** a JSON text, inline or by digest */
export const tracedTextSchema = z.union([z.string(), z.strictObject({ blob: digest, bytes: z.number().int().nonnegative() })]);
export type TracedText = z.output<typeof tracedTextSchema>;

export const tracedEffectSchema = z.strictObject({ op: z.string().min(1), args: tracedTextSchema, answer: tracedTextSchema });
export type TracedEffect = z.output<typeof tracedEffectSchema>;

export const tracedCallSchema = z.strictObject({
  plugin: z.string().min(1),
  /** sha256 of the bundle's code; the code is in trace/blobs/ */
  bundle: digest,
  /**
   * the plugin's isolate was built for this call: no state from earlier calls. Where replay
   * must start; not part of the hash, since it depends on when the kernel last started
   * (a rebooted kernel builds fresh isolates where a running one reuses them).
   */
  fresh: z.boolean(),
  method: z.string().min(1),
  /** the arguments array, as JSON text */
  args: tracedTextSchema,
  /** `{"ok":value}` or `{"err":"one line"}` */
  result: tracedTextSchema,
  effects: z.array(tracedEffectSchema),
});
export type TracedCall = z.output<typeof tracedCallSchema>;

export const traceRecordSchema = z.strictObject({
  v: z.literal(TRACE_FORMAT_VERSION),
  persona: z.string().min(1),
  /** the cycle; for a tool call outside any cycle (trace/tools.jsonl), the cycles completed before it (0: none) */
  cycle: z.number().int().nonnegative(),
  /** the cycle's clock reading (the loop's `now`) */
  now: z.number(),
  /** sha256 of the persona profile's bytes; the text is in trace/blobs/ */
  profile: digest,
  /** the persona's per-call CPU and per-cycle wall limits as the cycle ran (env overrides applied) */
  limits: z.strictObject({ cpu_seconds: z.number().positive(), wall_seconds: z.number().positive() }),
  calls: z.array(tracedCallSchema),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
});
export type TraceRecord = z.output<typeof traceRecordSchema>;
export type TraceBody = Omit<TraceRecord, 'hash'>;

export function traceHash(body: TraceBody): string {
  const { v, persona, cycle, now, profile, limits } = body;
  const calls = body.calls.map(({ fresh: _fresh, ...call }) => call);
  return createHash('sha256').update(canonicalJson({ v, persona, cycle, now, profile, limits, calls })).digest('hex');
}

/** A traced text with its keys in canonical (sorted) order. */
const sortedText = (text: TracedText): TracedText => (typeof text === 'string' ? text : { blob: text.blob, bytes: text.bytes });
const sortedEffect = (e: TracedEffect) => ({ answer: sortedText(e.answer), args: sortedText(e.args), op: e.op });

/**
 * Effects are stringified this many at a time: one JSON.stringify of a whole call's effects
 * (100 KB and more) makes a string that costs several times its stringify to hand to the
 * hash; pieces of this size do not.
 */
const EFFECTS_PER_PIECE = 256;

/**
 * traceHash for a record that passed traceRecordSchema (or a body built from one): the same
 * bytes, fed to the hash in pieces, each a native JSON.stringify of objects rebuilt with
 * their keys in sorted order (`hash` and `fresh` left out): canonicalJson's text for these
 * strict shapes. Replay hashes every line it reads; the generic canonicalJson walk was most
 * of its time. features/cycle-recording/test/trace-hash.test.ts checks both hashes agree.
 */
export function checkedTraceHash(body: TraceBody): string {
  const hash = createHash('sha256');
  hash.update('{"calls":[');
  for (const [i, c] of body.calls.entries()) {
    // `{"args":…,"bundle":…` + `,"effects":[…]` + `,"method":…,"plugin":…,"result":…}`
    hash.update(`${i > 0 ? ',' : ''}${JSON.stringify({ args: sortedText(c.args), bundle: c.bundle }).slice(0, -1)},"effects":[`);
    for (let at = 0; at < c.effects.length; at += EFFECTS_PER_PIECE) {
      const piece = JSON.stringify(c.effects.slice(at, at + EFFECTS_PER_PIECE).map(sortedEffect));
      hash.update(`${at > 0 ? ',' : ''}${piece.slice(1, -1)}`);
    }
    hash.update(`],${JSON.stringify({ method: c.method, plugin: c.plugin, result: sortedText(c.result) }).slice(1)}`);
  }
  const limits = { cpu_seconds: body.limits.cpu_seconds, wall_seconds: body.limits.wall_seconds };
  hash.update(`],${JSON.stringify({ cycle: body.cycle, limits, now: body.now, persona: body.persona, profile: body.profile, v: body.v }).slice(1)}`);
  return hash.digest('hex');
}

/** What the cycle event carries about its trace. */
export interface TraceSummary {
  hash: string;
  calls: number;
  effects: number;
}

export const traceSummarySchema = z.object({ hash: z.string(), calls: z.number(), effects: z.number() });
