/**
 * What a piece of evidence's digest is now, so a proposal's `{ref, digest}` can be checked
 * (ratify.ts). A ref is one of:
 *   - an event of the persona's log: `events#<seq>`, `logs/events.jsonl#<seq>` or
 *     `persistence.db#events/<seq>`: the digest is `sha256:<the event's hash>`;
 *   - a file: an absolute path, or one relative to the persona folder (a gate evidence
 *     package is named by its manifest.json): the digest is the sha256 of its bytes.
 * Anything else cannot be checked (undefined), and a proposal resting on it is not ratified.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { EventEnvelope } from '../events/envelope.ts';
import { readFileCapped } from '../storage/safe-read.ts';

const EVENT_REF = /^(?:events|logs\/events\.jsonl|persistence\.db#events)[#/]([1-9]\d*)$/;

/** Evidence files are read whole to be hashed: far above any real one. */
const MAX_EVIDENCE_BYTES = 256 * 1024 * 1024;

export interface EvidenceSources {
  personaDir: string;
  /** the persona's events (through its backend), for event refs */
  events?: () => Iterable<EventEnvelope>;
}

export function eventSeqOfRef(ref: string): number | undefined {
  const match = EVENT_REF.exec(ref);
  return match ? Number(match[1]) : undefined;
}

export function evidenceDigest(ref: string, sources: EvidenceSources): string | undefined {
  const seq = eventSeqOfRef(ref);
  if (seq !== undefined) {
    if (!sources.events) return undefined;
    try {
      for (const event of sources.events()) if (event.seq === seq) return `sha256:${event.hash}`;
    } catch {
      return undefined;
    }
    return undefined;
  }
  if (ref.includes('\0')) return undefined;
  const file = path.isAbsolute(ref) ? ref : path.join(sources.personaDir, ref);
  try {
    const bytes = readFileCapped(file, { maxBytes: MAX_EVIDENCE_BYTES });
    return bytes === undefined ? undefined : `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  } catch {
    return undefined;
  }
}
