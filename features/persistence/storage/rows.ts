/**
 * Events as a backend that is not the JSONL file stores them: the same encoding steps as
 * kernel/events' EventLog.append (redact, canonical JSON, hash of {v, seq, type, payload,
 * prev}, the envelope line), built from the same helpers, so every backend writes
 * byte-identical event JSON and hashes; and the same chain checks as kernel/events' scanner,
 * applied to records that come from a table instead of a file's lines.
 */
import { kernelError } from '../../../kernel/errors.ts';
import { canonicalJson } from '../../../kernel/events/canonical.ts';
import {
  envelopeLine,
  EVENT_SCHEMA_VERSION,
  EVENT_TYPE_PATTERN,
  EventEnvelopeSchema,
  GENESIS_HASH,
  hashInput,
  sha256,
  type EventEnvelope,
} from '../../../kernel/events/envelope.ts';
import { chainStep, type ScanStart } from '../../../kernel/events/scan.ts';
import { redactRecord } from '../../../kernel/redact/index.ts';
import type { StoreProblem } from '../../../kernel/contracts/persistence.ts';
import type { EncodedEvent } from '../../../kernel/events/batch.ts';

/** The shape is the kernel's (the event log's rows for sinks that keep rows); this file encodes it. */
export type { EncodedEvent } from '../../../kernel/events/batch.ts';

/** Validates and encodes one append exactly as EventLog.append does. Throws RTC_ERR_EVENTS_INVALID. */
export function encodeEvent(seq: number, prev: string, type: string, payload: Record<string, unknown>, at: Date): EncodedEvent {
  if (!EVENT_TYPE_PATTERN.test(type)) {
    throw kernelError('RTC_ERR_EVENTS_INVALID', `event type "${type}" is not a lower-case name (${EVENT_TYPE_PATTERN.source})`);
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw kernelError('RTC_ERR_EVENTS_INVALID', `the payload of "${type}" must be an object`);
  }
  const payloadJson = canonicalJson(redactRecord(payload));
  const hash = sha256(hashInput(seq, type, payloadJson, prev));
  return { seq, type, payloadJson, prev, hash, at: at.toISOString() };
}

/**
 * The JSONL line of a stored event (with its newline), as the event log writes it: every
 * backend's segments hold these bytes.
 */
export function eventLine(event: EventEnvelope): string {
  if (event.v !== EVENT_SCHEMA_VERSION) {
    throw kernelError('RTC_ERR_EVENTS_VERSION', `event seq ${event.seq} has schema version ${event.v}; this kernel writes version ${EVENT_SCHEMA_VERSION}`);
  }
  return envelopeLine(event.seq, event.type, canonicalJson(event.payload), event.prev, event.hash, event.at);
}

/** One stored event as a table row gives it: every field as stored, the payload as text. */
export interface StoredEventRow {
  seq: unknown;
  v: unknown;
  type: unknown;
  payload: unknown;
  prev: unknown;
  hash: unknown;
  at: unknown;
}

export type RowCheckItem = { kind: 'event'; event: EventEnvelope } | { kind: 'problem'; problem: StoreProblem };


/**
 * The scanner's rules over rows in seq order: a newer version, a record that is not a
 * valid envelope, a gap or repeat in seq, a prev that does not match, a hash that does not
 * match the content. After a problem it carries on from what the bad row claims, so one
 * edited event is reported once.
 */
export function* checkEventRows(rows: Iterable<StoredEventRow>, file: string, start?: ScanStart): Generator<RowCheckItem> {
  let expectedSeq = start?.seq ?? 1;
  let prevHash = start?.prev ?? GENESIS_HASH;
  let first = true;
  for (const row of rows) {
    const isFirst = first;
    first = false;
    const claimedSeq = typeof row.seq === 'number' && Number.isSafeInteger(row.seq) ? row.seq : undefined;
    const problem = (code: string, what: string, seq = claimedSeq): RowCheckItem => ({
      kind: 'problem',
      problem: { file, code, what, severity: 'error', ...(seq === undefined ? {} : { seq }) },
    });
    const advance = () => {
      expectedSeq = (claimedSeq ?? expectedSeq) + 1;
      if (typeof row.hash === 'string') prevHash = row.hash;
    };
    if (typeof row.v === 'number' && row.v > EVENT_SCHEMA_VERSION) {
      yield problem('RTC_ERR_EVENTS_VERSION', `written with event schema version ${row.v}; this kernel reads version ${EVENT_SCHEMA_VERSION} and older`);
      advance();
      continue;
    }
    let payload: unknown;
    try {
      payload = typeof row.payload === 'string' ? JSON.parse(row.payload) : undefined;
    } catch (error) {
      yield problem('RTC_ERR_EVENTS_CORRUPT', `payload is not valid JSON (${(error as Error).message.split('\n')[0]})`);
      advance();
      continue;
    }
    const raw = { v: row.v, seq: row.seq, type: row.type, payload, prev: row.prev, hash: row.hash, at: row.at };
    const parsed = EventEnvelopeSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue && issue.path.length > 0 ? issue.path.join('.') : '(root)';
      yield problem('RTC_ERR_EVENTS_CORRUPT', `not a valid event: ${field}: ${issue?.message ?? 'invalid'}`);
      advance();
      continue;
    }
    // The payload exactly as JSON.parse read it (zod's record copy drops a `__proto__` key).
    const event: EventEnvelope = { ...parsed.data, payload: payload as EventEnvelope['payload'] };
    // The open segment's first row is its header after the first seal, as in a segment's file.
    const step = chainStep(event, isFirst, { expectedSeq, prevHash }, start !== undefined, 'record');
    for (const message of step.broken) yield problem('RTC_ERR_EVENTS_CHAIN', message, event.seq);
    ({ expectedSeq, prevHash } = step.next);
    if (step.broken.length === 0) yield { kind: 'event', event };
  }
}
