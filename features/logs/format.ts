/**
 * How `runtimectl logs` prints an event: one line for people, or one JSON object (--json).
 *
 * The line is `<at> <persona> #<seq> <type> <what it says>`. What it says is the event's own
 * details, never its type again: a cycle's number, phase, outcome and why; a proposal's id,
 * kind, proposer and gist; a decision's change, who made it and whether it was signed; an
 * operator alert as `ALERT <kind>: <message>`; a tool call's tool, caller and outcome; any
 * other event its scalar fields as `key=value` (hashes and schema versions left out).
 */
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { CYCLE_EVENT } from '../history/usage.ts';

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

type Payload = Record<string, any>;

/** Fields that say nothing to a reader of one line (the chain and the format have their own checks). */
const QUIET_FIELDS = new Set(['schema_version', 'proposal_log_hash', 'proposal_log_seq', 'mirrored', 'persona', 'persona_id', 'hash', 'prev']);

/** An event nobody taught this file: its fields as `key=value`, nested ones as compact JSON. */
function fields(p: Payload): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(p)) {
    if (QUIET_FIELDS.has(key) || value === undefined) continue;
    const text = typeof value === 'string' ? (/\s/.test(value) ? JSON.stringify(value) : value) : JSON.stringify(value);
    parts.push(`${key}=${text.length > 120 ? `${text.slice(0, 119)}…` : text}`);
  }
  return parts.join(' ');
}

function proposer(p: Payload): string {
  const o = p.origin as Payload | undefined;
  if (!o) return String(p.proposer ?? '?');
  const how = [`via ${o.via}`, ...(o.run_id ? [`session ${o.run_id}`] : []), ...(o.cycle === undefined ? [] : [`cycle ${o.cycle}`])];
  return `${p.proposer} (${how.join(', ')})`;
}

function proposalGist(proposal: Payload): string {
  const c = (proposal.content ?? {}) as Payload;
  if (proposal.kind === 'memory-promotion') return JSON.stringify(oneLine(String(c.text ?? ''), 80));
  if (proposal.kind === 'skill-draft') return `skill ${c.skill}`;
  return String(c.path ?? '');
}

function cycleGist(p: Payload): string {
  const why = p.outcome === 'executed' ? `${p.executor?.plugin ?? ''} ran${p.executor_session?.last_message ? `: ${p.executor_session.last_message}` : ''}` : (p.defer_reason ?? '');
  const review = (p.review ?? {}) as Payload;
  const list = (key: string) => (Array.isArray(review[key]) ? (review[key] as unknown[]) : []);
  const notes = [
    ...(list('applied').length > 0 ? [`applied ${list('applied').join(', ')}`] : []),
    ...(list('held').length > 0 ? [`HELD ${list('held').map((h) => (h as Payload).id).join(', ')}`] : []),
    ...(list('queued').length > 0 ? [`proposed ${list('queued').join(', ')}`] : []),
    ...(typeof review.refused === 'number' && review.refused > 0 ? [`${review.refused} proposal(s) refused`] : []),
    ...(list('alerts').length > 0 ? [`${list('alerts').length} ALERT(S)`] : []),
  ];
  return `cycle #${p.cycle} ${p.phase} ${p.outcome}: ${why}${notes.length > 0 ? ` [${notes.join('; ')}]` : ''}`;
}

/** What the event says, in a few words (see the top of this file). */
export function eventGist(e: Pick<EventEnvelope, 'type' | 'payload'>): string {
  const p = e.payload as Payload;
  switch (e.type) {
    case CYCLE_EVENT:
      return oneLine(cycleGist(p), 300);
    case 'log_segment':
      return `segment ${p.segment} opens (segment ${p.sealed?.segment ?? '?'} sealed: ${p.sealed?.records ?? '?'} records)`;
    case 'persona_start':
      return oneLine(`start: ${p.runtime ?? ''} kernel ${p.kernel_version ?? ''}`, 200);
    case 'operator_alert':
      return oneLine(`ALERT ${p.alert}: ${p.message}`, 500);
    case 'proposal_submitted': {
      const q = (p.proposal ?? {}) as Payload;
      return oneLine(`${q.id} ${q.kind} proposed by ${proposer(q)}: ${proposalGist(q)}; expires ${new Date(Number(q.expires_at)).toISOString()}`, 300);
    }
    case 'proposal_state': {
      const signed = p.ratification ? ' (signed)' : p.by === 'review-queue' ? '' : ' (unsigned)';
      return oneLine(`${p.id} ${p.from} → ${p.to} by ${p.by}${signed}${p.reason ? `: ${p.reason}` : ''}`, 300);
    }
    case 'proposal_refused':
      return oneLine(`a ${p.kind} proposal from ${proposer(p)} refused (${p.reason}: ${p.observed} against a limit of ${p.limit}${p.window_seconds ? ` in ${p.window_seconds}s` : ''})`, 300);
    case 'proposal_input_refused':
      return oneLine(`a proposal from ${proposer(p)} refused (${p.reason}): ${p.message}`, 300);
    case 'proposal_applying':
      return `${p.id} applying: ${p.block_bytes} bytes to ${p.file} at offset ${p.offset}`;
    case 'proposal_applied': {
      const effect = (p.effect ?? {}) as Payload;
      const what = effect.status === 'applied' ? `appended ${effect.bytes} bytes to ${effect.file}` : `awaiting operator: ${effect.action}`;
      return oneLine(`${p.id} (${p.kind}, accepted by ${p.accepted_by}) applied: ${what}`, 300);
    }
    case 'operator_trust_changed': {
      const names = Array.isArray(p.operators) ? (p.operators as Payload[]).map((o) => o.name).join(', ') : '';
      return p.error ? oneLine(`ALERT the operator trust list (${p.file}) cannot be read: ${p.error}; no accepted proposal is applied until it is fixed`, 500) : `the operator trust list (${p.file}) changed: trusted now ${names || 'nobody'}`;
    }
    case 'tool_call':
      return oneLine(`${p.tool} via ${p.via}${p.cycle === null || p.cycle === undefined ? '' : ` (cycle ${p.cycle})`}: ${p.ok ? 'ok' : `failed: ${p.error ?? p.code ?? '?'}`}`, 300);
    default: {
      const reason = typeof p.reason === 'string' ? p.reason : undefined;
      const rest = fields(reason === undefined ? p : Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'reason')));
      return oneLine([reason, rest].filter((x) => x).join('; ') || '(no details)', 300);
    }
  }
}

export function eventLine(persona: string, e: EventEnvelope): string {
  return `${e.at} ${persona} #${e.seq} ${e.type} ${eventGist(e)}`;
}

export function eventJson(persona: string, e: EventEnvelope): string {
  return JSON.stringify({ persona_id: persona, ...e });
}
