/** The JSONL line of a stored event, as the event log writes it (every backend's segments hold these bytes). */
import { kernelError } from '../errors.ts';
import { canonicalJson } from './canonical.ts';
import { envelopeLine, EVENT_SCHEMA_VERSION, type EventEnvelope } from './envelope.ts';

export function eventLineOf(event: EventEnvelope): string {
  if (event.v !== EVENT_SCHEMA_VERSION) {
    throw kernelError('RTC_ERR_EVENTS_VERSION', `event seq ${event.seq} has schema version ${event.v}; this kernel writes version ${EVENT_SCHEMA_VERSION}`);
  }
  return envelopeLine(event.seq, event.type, canonicalJson(event.payload), event.prev, event.hash, event.at);
}
