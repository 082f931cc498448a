/**
 * One event, one line of `logs/events.jsonl`:
 *
 *   {"v":1,"seq":N,"type":"...","payload":{...},"prev":"<hash of event N-1>","hash":"<sha256>","at":"<ISO time>"}
 *
 * `hash` is sha256 over the canonical JSON of {v, seq, type, payload, prev}: the chain is
 * deterministic and replayable. `at` is wall-clock time for people, kept out of the hash.
 */
import * as crypto from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from './canonical.ts';

/** The envelope version this kernel writes and the newest it reads. */
export const EVENT_SCHEMA_VERSION = 1;

/** `prev` of the first event. */
export const GENESIS_HASH = '0'.repeat(64);

/** Event type names: lower-case words with `_`, `.` or `:` between them (`reboot`, `loop.cycle`). */
export const EVENT_TYPE_PATTERN = /^[a-z][a-z0-9_.:-]{0,127}$/;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits (sha256)');

/**
 * Strict: a key the hash does not cover would be a place to hide an edit, so an envelope
 * with any key other than these is refused.
 */
export const EventEnvelopeSchema = z
  .strictObject({
    v: z.literal(EVENT_SCHEMA_VERSION).describe('envelope schema version'),
    seq: z.number().int().min(1).describe('1 for the first event, then +1 per event with no gaps'),
    type: z.string().regex(EVENT_TYPE_PATTERN, 'must be a lower-case event type name').describe('event type'),
    payload: z.record(z.string(), z.unknown()).describe('redacted, deterministic event content'),
    prev: sha256Hex.describe('hash of the previous event, or 64 zeros for the first'),
    hash: sha256Hex.describe('sha256 of the canonical JSON of {v, seq, type, payload, prev}'),
    at: z.iso.datetime().describe('wall-clock time of the append; not covered by the hash'),
  })
  .describe('One line of a persona event log (logs/events.jsonl)');

export type EventEnvelope = z.infer<typeof EventEnvelopeSchema>;

/**
 * The hashed text for an event whose payload is already canonical JSON. Equal to
 * canonicalJson({v, seq, type, payload, prev}): the keys are written in sorted order.
 */
export function hashInput(seq: number, type: string, payloadJson: string, prev: string, v: number = EVENT_SCHEMA_VERSION): string {
  return `{"payload":${payloadJson},"prev":${JSON.stringify(prev)},"seq":${seq},"type":${JSON.stringify(type)},"v":${v}}`;
}

/**
 * hashInput() for the event log's own appends, where `type` has matched EVENT_TYPE_PATTERN
 * and `prev` is a hash this kernel computed: neither holds a character JSON escapes, so they
 * are written as they are. Same text as hashInput(), without two JSON.stringify calls per event.
 */
export function appendHashInput(seq: number, type: string, payloadJson: string, prev: string): string {
  return `{"payload":${payloadJson},"prev":"${prev}","seq":${seq},"type":"${type}","v":${EVENT_SCHEMA_VERSION}}`;
}

/** envelopeLine() under the same conditions as appendHashInput(). */
export function appendEnvelopeLine(seq: number, type: string, payloadJson: string, prev: string, hash: string, at: string): string {
  return `{"v":${EVENT_SCHEMA_VERSION},"seq":${seq},"type":"${type}","payload":${payloadJson},"prev":"${prev}","hash":"${hash}","at":"${at}"}\n`;
}

/**
 * crypto.hash (Node 20.12+) digests in one call, without a Hash object per event; the same
 * digest as createHash().update(text, 'utf8').digest('hex'), which older Node 20 releases use.
 */
const oneShotHash: ((algorithm: string, data: string, encoding: 'hex') => string) | undefined = (crypto as { hash?: typeof crypto.hash }).hash;

export function sha256(text: string): string {
  return oneShotHash ? oneShotHash('sha256', text, 'hex') : crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The hash an envelope should carry, recomputed from its parsed content. */
export function computeEventHash(event: { v: number; seq: number; type: string; payload: Record<string, unknown>; prev: string }): string {
  return sha256(hashInput(event.seq, event.type, canonicalJson(event.payload), event.prev, event.v));
}

/** The line written for an event (with its trailing newline), keys in the documented order. */
export function envelopeLine(seq: number, type: string, payloadJson: string, prev: string, hash: string, at: string): string {
  return `{"v":${EVENT_SCHEMA_VERSION},"seq":${seq},"type":${JSON.stringify(type)},"payload":${payloadJson},"prev":"${prev}","hash":"${hash}","at":"${at}"}\n`;
}
