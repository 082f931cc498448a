/**
 * The queue's changes, each run inside one locked session (session.ts): expiry, submission
 * with backpressure, and decisions. Every change first expires what is due, so a proposal
 * past its time can never be accepted, and a refusal never drops what is already queued.
 */
import { kernelError } from '../../kernel/errors.ts';
import { canonicalJson } from '../../kernel/events/canonical.ts';
import { describeZodError } from '../../kernel/manifest/load.ts';
import { storeBlob } from './blobs.ts';
import { parseProposalId, proposalId } from './paths.ts';
import type { ReviewPolicy } from '../../kernel/personas/review-policy.ts';
import {
  actorSchema,
  proposalInputSchema,
  RECORD_TYPES,
  REVIEW_SCHEMA_VERSION,
  type EvidenceRef,
  type ProposalInput,
  type ProposalKind,
  type ProposalOrigin,
  type ProposalRecord,
  type ProposalState,
  type RefusalReason,
} from './records.ts';
import type { OperatorKey } from './operators.ts';
import { checkEvidence, checkSignature, signDecision, type RatifyContext } from './ratify.ts';
import { sha256Digest, type ReviewSession } from './session.ts';
import { openProposals, proposalsOf, type Proposal, type QueueState } from './state.ts';
import type { ReviewRecord } from './log-file.ts';

/** Who records an expiry: the queue itself, not an operator. */
export const EXPIRY_ACTOR = 'review-queue';

/** One record as an event for the persona's event log: the loop appends these, so nothing the queue does is silent there either. */
export interface ReviewEvent {
  type: string;
  payload: Record<string, unknown>;
}

export function toEvents(records: readonly ReviewRecord[]): ReviewEvent[] {
  return records.map((r) => ({ type: r.type, payload: { ...r.payload, proposal_log_seq: r.seq, proposal_log_hash: r.hash } }));
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Appends an `expired` record for every open proposal whose expiry is at or before now. */
export function expireDueIn(session: ReviewSession): Proposal[] {
  const due = openProposals(session.state).filter((p) => p.expires_at <= session.now);
  for (const proposal of due) {
    session.append(RECORD_TYPES.state, {
      schema_version: REVIEW_SCHEMA_VERSION,
      id: proposal.id,
      from: proposal.state,
      to: 'expired',
      by: EXPIRY_ACTOR,
      at: session.now,
      reason: `undecided at its expiry ${iso(proposal.expires_at)}`,
    });
  }
  return due;
}

export interface Refusal {
  reason: RefusalReason;
  limit: number;
  observed: number;
  window_seconds?: number;
  message: string;
  /** seq of the proposal_refused and operator_alert records in the proposal log (this refusal's, or the one it repeats). */
  refusal_seq: number;
  alert_seq: number;
  /**
   * false: the same proposer was refused for the same reason a moment ago and nothing it did
   * since changed that (no proposal of its was queued, the window has not passed), so this
   * refusal repeats that record instead of writing another: a flood of refused proposals
   * costs the log two records per proposer, reason and window, not two per attempt.
   */
  recorded: boolean;
}

export type SubmitOutcome = { status: 'queued'; proposal: Proposal } | { status: 'refused'; refusal: Refusal };

type Prepared = { kind: ProposalKind; proposer: string; origin?: ProposalOrigin; evidence: EvidenceRef[]; content: ProposalRecord['content']; blob?: Buffer };

function prepare(input: ProposalInput): Prepared {
  const result = proposalInputSchema.safeParse(input);
  if (!result.success) {
    const { field, reason } = describeZodError(result.error);
    throw kernelError('RTC_ERR_REVIEW_INVALID', `proposal: ${field}: ${reason}`, { details: { field, reason } });
  }
  const value = result.data;
  const base = { kind: value.kind, proposer: value.proposer, ...(value.origin ? { origin: value.origin } : {}), evidence: value.evidence };
  switch (value.kind) {
    case 'memory-promotion':
      return { ...base, content: { text: value.text } };
    case 'skill-draft':
      return { ...base, content: { skill: value.skill, package: value.package } };
    case 'profile-change':
    case 'plugin-change': {
      const blob = typeof value.content === 'string' ? Buffer.from(value.content, 'utf8') : Buffer.from(value.content);
      return { ...base, content: { path: value.path, content_digest: sha256Digest(blob), bytes: blob.length }, blob };
    }
  }
}

type Limit = Omit<Refusal, 'refusal_seq' | 'alert_seq' | 'message' | 'recorded'>;

/** The first backpressure limit this proposal would break, if any. */
function backpressure(session: ReviewSession, policy: ReviewPolicy, proposer: string): Limit | undefined {
  const open = openProposals(session.state).length;
  if (open >= policy.max_pending) return { reason: 'max_pending', limit: policy.max_pending, observed: open };
  const all = proposalsOf(session.state);
  if (policy.per_proposer) {
    const since = session.now - policy.per_proposer.per_seconds * 1000;
    const mine = all.filter((p) => p.proposer === proposer && p.created_at > since).length;
    if (mine >= policy.per_proposer.count) return { reason: 'proposer_rate_limit', limit: policy.per_proposer.count, observed: mine, window_seconds: policy.per_proposer.per_seconds };
  }
  const windowStart = session.now - policy.rate_limit.per_seconds * 1000;
  const recent = all.filter((p) => p.created_at > windowStart).length;
  if (recent >= policy.rate_limit.count) {
    return { reason: 'rate_limit', limit: policy.rate_limit.count, observed: recent, window_seconds: policy.rate_limit.per_seconds };
  }
  return undefined;
}

function refusalMessage(limit: Limit, proposer: string): string {
  switch (limit.reason) {
    case 'max_pending':
      return `${limit.observed} proposals are open and max_pending is ${limit.limit}; decide some or let them expire`;
    case 'proposer_rate_limit':
      return `${proposer} queued ${limit.observed} proposals in the last ${limit.window_seconds}s and may queue ${limit.limit} (per_proposer)`;
    default:
      return `${limit.observed} proposals were queued in the last ${limit.window_seconds}s and the rate limit is ${limit.limit}`;
  }
}

/**
 * The refusal this one repeats, if any: the last one recorded for the same proposer and
 * reason, no proposal of that proposer queued since, within the window (the rate window;
 * max_pending's reminder comes once per rate window too).
 */
function repeatedRefusal(session: ReviewSession, policy: ReviewPolicy, proposer: string, reason: RefusalReason): QueueState['refusals'][number] | undefined {
  const { state, now } = session;
  const last = [...state.refusals].reverse().find((r) => r.proposer === proposer && r.reason === reason);
  if (!last) return undefined;
  const window = (reason === 'proposer_rate_limit' && policy.per_proposer ? policy.per_proposer.per_seconds : policy.rate_limit.per_seconds) * 1000;
  if (now - last.at >= window) return undefined;
  if (proposalsOf(state).some((p) => p.proposer === proposer && p.submitted_seq > last.seq)) return undefined;
  return last;
}

export function submitIn(session: ReviewSession, input: ProposalInput, policy: ReviewPolicy): SubmitOutcome {
  const prepared = prepare(input);
  expireDueIn(session);
  const { state, now } = session;
  const limit = backpressure(session, policy, prepared.proposer);
  if (limit) {
    const message = refusalMessage(limit, prepared.proposer);
    const repeated = repeatedRefusal(session, policy, prepared.proposer, limit.reason);
    if (repeated) {
      const alert = state.alerts.find((a) => a.alert === 'review_backpressure' && a.refusal_seq === repeated.seq);
      return { status: 'refused', refusal: { ...limit, message, refusal_seq: repeated.seq, alert_seq: alert?.seq ?? repeated.seq, recorded: false } };
    }
    const refused = session.append(RECORD_TYPES.refused, {
      schema_version: REVIEW_SCHEMA_VERSION,
      persona: state.persona,
      kind: prepared.kind,
      proposer: prepared.proposer,
      ...(prepared.origin ? { origin: prepared.origin } : {}),
      at: now,
      ...limit,
      proposal_digest: sha256Digest(canonicalJson({ kind: prepared.kind, proposer: prepared.proposer, evidence: prepared.evidence, content: prepared.content })),
      evidence: prepared.evidence,
    });
    const alert = session.append(RECORD_TYPES.alert, {
      schema_version: REVIEW_SCHEMA_VERSION,
      alert: 'review_backpressure',
      persona: state.persona,
      at: now,
      message: `a ${prepared.kind} proposal from ${prepared.proposer} was refused (${limit.reason}): ${message}; nothing already queued was dropped`.slice(0, 1000),
      refusal_seq: refused.seq,
    });
    return { status: 'refused', refusal: { ...limit, message, refusal_seq: refused.seq, alert_seq: alert.seq, recorded: true } };
  }
  // The content is stored before the record that names it, so a recorded digest always has its blob.
  if (prepared.blob) storeBlob(session.paths.personaDir, prepared.blob);
  const id = proposalId(state.persona, state.proposals.size + 1);
  session.append(RECORD_TYPES.submitted, {
    schema_version: REVIEW_SCHEMA_VERSION,
    proposal: {
      schema_version: REVIEW_SCHEMA_VERSION,
      id,
      kind: prepared.kind,
      persona: state.persona,
      proposer: prepared.proposer,
      ...(prepared.origin ? { origin: prepared.origin } : {}),
      created_at: now,
      expires_at: now + policy.expire_after_seconds * 1000,
      evidence: prepared.evidence,
      content: prepared.content,
    },
  });
  return { status: 'queued', proposal: state.proposals.get(id)! };
}

export interface Decision {
  by: string;
  reason?: string;
  /** the operator credential that signs the decision (ratify.ts); without it the record carries no signature */
  operator?: OperatorKey;
  /**
   * checked under the lock before the record is written: the signature must be a trusted
   * operator's, and (to accept) the evidence must still match. A decision that would not be
   * ratified is refused, not recorded.
   */
  ratify?: RatifyContext;
}

const VERB: Record<string, string> = { 'under-review': 'taken under review', accepted: 'accepted', rejected: 'rejected' };

/** Throws RTC_ERR_REVIEW_NOT_FOUND unless `id` names a proposal in this persona's queue. */
export function findProposal(state: { persona: string; proposals: Map<string, Proposal> }, id: string): Proposal {
  const proposal = state.proposals.get(id);
  if (proposal) return proposal;
  const parsed = parseProposalId(id);
  const hint = parsed === undefined ? ' (ids look like P-<persona>-<n>)' : parsed.persona !== state.persona ? ` (it names persona "${parsed.persona}")` : '';
  throw kernelError('RTC_ERR_REVIEW_NOT_FOUND', `no proposal ${id} in the review queue of persona "${state.persona}"${hint}`, {
    details: { id, persona: state.persona },
  });
}

/**
 * One state change asked for by an operator. Re-checked here, under the lock, against the
 * log as it is now: of two operators deciding one proposal, the second finds it decided.
 */
export function decideIn(session: ReviewSession, id: string, to: 'under-review' | 'accepted' | 'rejected', decision: Decision): Proposal {
  const by = actorSchema.safeParse(decision.by);
  if (!by.success) throw kernelError('RTC_ERR_REVIEW_INVALID', `--by ${JSON.stringify(decision.by)}: ${by.error.issues[0]?.message ?? 'invalid'}`);
  const reason = decision.reason?.trim();
  if (reason !== undefined && (reason === '' || reason.length > 4000)) throw kernelError('RTC_ERR_REVIEW_INVALID', 'a reason must be 1 to 4000 characters');
  if (to === 'rejected' && reason === undefined) throw kernelError('RTC_ERR_REVIEW_INVALID', `rejecting ${id} needs a reason`);
  expireDueIn(session);
  const proposal = findProposal(session.state, id);
  const verb = VERB[to] ?? to;
  if (proposal.state === 'expired') {
    throw kernelError('RTC_ERR_REVIEW_EXPIRED', `${id} expired at ${iso(proposal.expires_at)} without a decision; it cannot be ${verb}`, {
      details: { id, expires_at: proposal.expires_at },
    });
  }
  if (proposal.decision) {
    const d = proposal.decision;
    throw kernelError('RTC_ERR_REVIEW_DECIDED', `${id} was already ${d.to} by ${d.by} at ${iso(d.at)}; a proposal is decided once`, {
      details: { id, state: d.to, by: d.by, at: d.at },
    });
  }
  if (proposal.state === to) {
    const who = proposal.history.at(-1)?.by ?? '?';
    throw kernelError('RTC_ERR_REVIEW_TRANSITION', `${id} is already under review by ${who}`, { details: { id, state: proposal.state } });
  }
  const fields = { persona: proposal.persona, id, from: proposal.state as ProposalState, to, by: by.data, at: session.now, ...(reason === undefined ? {} : { reason }) };
  const ratification = decision.operator ? signDecision(decision.operator, proposal, fields) : undefined;
  if (decision.ratify) {
    const verdict = checkSignature(proposal, { ...fields, ...(ratification ? { ratification } : {}) }, decision.ratify.trust);
    if (!verdict.ok) {
      // Refused, and said where operators look: a decision nobody trusted tried to change the queue.
      session.append(RECORD_TYPES.alert, {
        schema_version: REVIEW_SCHEMA_VERSION,
        alert: 'decision_refused',
        persona: proposal.persona,
        at: session.now,
        message: `a decision to ${to === 'under-review' ? 'take' : to === 'accepted' ? 'accept' : 'reject'} ${id} by "${by.data}" was refused: ${verdict.reason}`.slice(0, 1000),
        id,
        to,
        by: by.data,
        ...(ratification ? { key_fingerprint: ratification.key_fingerprint } : {}),
      });
      throw kernelError('RTC_ERR_REVIEW_OPERATOR', `${id} cannot be ${verb}: ${verdict.reason}`, { details: { id } });
    }
    if (to === 'accepted') {
      const evidence = checkEvidence(proposal, decision.ratify.evidenceDigest);
      if (evidence !== undefined) throw kernelError('RTC_ERR_REVIEW_EVIDENCE', `${id} cannot be accepted: ${evidence}`, { details: { id } });
    }
  }
  session.append(RECORD_TYPES.state, {
    schema_version: REVIEW_SCHEMA_VERSION,
    id,
    from: proposal.state as ProposalState,
    to,
    by: by.data,
    at: session.now,
    ...(reason === undefined ? {} : { reason }),
    ...(ratification === undefined ? {} : { ratification }),
  });
  return proposal;
}
