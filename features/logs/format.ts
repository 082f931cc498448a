/** How `runtimectl logs` prints an event: one line for people, or one JSON object (--json). */
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { CYCLE_EVENT } from '../science-loop/budget/usage.ts';

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** What the event says, in a few words (a cycle: number, phase, outcome and why). */
export function eventGist(e: Pick<EventEnvelope, 'type' | 'payload'>): string {
  const p = e.payload as Record<string, any>;
  if (e.type === CYCLE_EVENT) {
    const why = p.outcome === 'executed' ? `${p.executor?.plugin ?? ''} ran${p.executor_session?.last_message ? `: ${p.executor_session.last_message}` : ''}` : (p.defer_reason ?? '');
    const applied = Array.isArray(p.review?.applied) && p.review.applied.length > 0 ? ` [applied ${p.review.applied.join(', ')}]` : '';
    return oneLine(`cycle #${p.cycle} ${p.phase} ${p.outcome}: ${why}${applied}`, 300);
  }
  if (e.type === 'log_segment') return `segment ${p.segment} opens (segment ${p.sealed?.segment ?? '?'} sealed: ${p.sealed?.records ?? '?'} records)`;
  if (e.type === 'persona_start') return oneLine(`start: ${p.runtime ?? ''} kernel ${p.kernel_version ?? ''}`, 200);
  const reason = typeof p.reason === 'string' ? `: ${p.reason}` : '';
  return oneLine(`${e.type}${reason}`, 300);
}

export function eventLine(persona: string, e: EventEnvelope): string {
  return `${e.at} ${persona} #${e.seq} ${e.type} ${eventGist(e)}`;
}

export function eventJson(persona: string, e: EventEnvelope): string {
  return JSON.stringify({ persona_id: persona, ...e });
}
