/**
 * A persona's queue as the records say it is: replaying the proposal log through reduce()
 * gives every proposal's state, history, decision and application. The same reducer runs
 * on records as they are appended, so what a process sees after writing is what the next
 * process will read. A record that the state does not allow (a second decision, a state
 * change of an unknown proposal, an application before acceptance) is an impossible log and
 * is reported as such, never skipped.
 */
import { formatFieldPath } from '../../kernel/manifest/load.ts';
import { proposalId } from './paths.ts';
import {
  OPEN_STATES,
  PAYLOAD_SCHEMAS,
  RECORD_TYPES,
  REVIEW_SCHEMA_VERSION,
  type AlertRecord,
  type AppliedEffect,
  type ApplyingRecord,
  type AppliedRecord,
  type ProposalRecord,
  type ProposalState,
  type RefusalRecord,
  type StateChangeRecord,
} from './records.ts';

export interface Transition {
  from: ProposalState;
  to: ProposalState;
  by: string;
  at: number;
  reason?: string;
  /** the operator's signature on the decision, when it carries one (ratify.ts checks it) */
  ratification?: StateChangeRecord['ratification'];
  /** seq of the record in the proposal log. */
  seq: number;
}

export type Proposal = ProposalRecord & {
  state: ProposalState;
  /** seq of the proposal_submitted record. */
  submitted_seq: number;
  history: Transition[];
  /** The one accept or reject, once made. */
  decision?: Transition;
  applied?: { at: number; seq: number; effect: AppliedEffect };
  /**
   * Accepted but held by the loop: its decision is not ratified (or its evidence moved), as the
   * latest `decision_not_ratified` alert about this decision says. Cleared by nothing: an
   * application that follows (a trust list fixed, evidence restored) is `applied`.
   */
  held?: { reason: string; at: number; seq: number };
};

export interface QueueState {
  persona: string;
  lastSeq: number;
  lastHash: string;
  proposals: Map<string, Proposal>;
  /** Accepted proposals in the order they were accepted (the order they are applied in). */
  acceptedOrder: string[];
  refusals: (RefusalRecord & { seq: number })[];
  alerts: (AlertRecord & { seq: number })[];
  /** A memory promotion whose block was announced but whose application is not yet recorded. */
  applying: Map<string, ApplyingRecord & { seq: number }>;
  /** long-term.md as the last applied memory promotion left it. */
  longTerm?: { size: number; sha256: string; id: string; seq: number };
}

export function emptyQueueState(persona: string, genesisHash: string): QueueState {
  return { persona, lastSeq: 0, lastHash: genesisHash, proposals: new Map(), acceptedOrder: [], refusals: [], alerts: [], applying: new Map() };
}

/** Which `to` states each state may move to. Accepted, rejected and expired are final. */
const ALLOWED: Record<ProposalState, readonly ProposalState[]> = {
  pending: ['under-review', 'accepted', 'rejected', 'expired'],
  'under-review': ['accepted', 'rejected', 'expired'],
  accepted: [],
  rejected: [],
  expired: [],
};

export function canMove(from: ProposalState, to: ProposalState): boolean {
  return ALLOWED[from].includes(to);
}

/** Thrown by reduce(): the log reader adds the file, line and seq. */
export class ImpossibleRecord extends Error {}

/** Applies one record (already chain-checked) to the state, or throws ImpossibleRecord. */
export function reduce(state: QueueState, record: { seq: number; type: string; hash: string; payload: Record<string, unknown> }): void {
  const schema = PAYLOAD_SCHEMAS[record.type];
  if (!schema) throw new ImpossibleRecord(`unknown record type "${record.type}"`);
  const claimed = record.payload['schema_version'];
  if (typeof claimed === 'number' && claimed > REVIEW_SCHEMA_VERSION) {
    throw new ImpossibleRecord(`written with review schema version ${claimed}; this kernel reads version ${REVIEW_SCHEMA_VERSION} and older`);
  }
  const parsed = schema.safeParse(record.payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ImpossibleRecord(`not a valid ${record.type} record: ${formatFieldPath(issue?.path ?? [])}: ${issue?.message ?? 'invalid'}`);
  }
  const seq = record.seq;
  switch (record.type) {
    case RECORD_TYPES.submitted:
      submitted(state, (parsed.data as { proposal: ProposalRecord }).proposal, seq);
      break;
    case RECORD_TYPES.state:
      changed(state, parsed.data as StateChangeRecord, seq);
      break;
    case RECORD_TYPES.refused:
      state.refusals.push({ ...(parsed.data as RefusalRecord), seq });
      break;
    case RECORD_TYPES.alert:
      alerted(state, parsed.data as AlertRecord, seq);
      break;
    case RECORD_TYPES.applying:
      applying(state, parsed.data as ApplyingRecord, seq);
      break;
    case RECORD_TYPES.applied:
      applied(state, parsed.data as AppliedRecord, seq);
      break;
    case RECORD_TYPES.repaired:
    case RECORD_TYPES.segment:
      break;
    default:
      throw new ImpossibleRecord(`unknown record type "${record.type}"`);
  }
  state.lastSeq = seq;
  state.lastHash = record.hash;
}

function submitted(state: QueueState, proposal: ProposalRecord, seq: number): void {
  if (proposal.persona !== state.persona) {
    throw new ImpossibleRecord(`proposal ${proposal.id} belongs to persona "${proposal.persona}", not "${state.persona}"; a proposal log is never shared or copied between personas`);
  }
  const expected = proposalId(state.persona, state.proposals.size + 1);
  if (proposal.id !== expected) throw new ImpossibleRecord(`proposal id ${proposal.id} where ${expected} was expected`);
  if (proposal.expires_at <= proposal.created_at) throw new ImpossibleRecord(`proposal ${proposal.id} expires before it was created`);
  state.proposals.set(proposal.id, { ...proposal, state: 'pending', submitted_seq: seq, history: [] });
}

function changed(state: QueueState, change: StateChangeRecord, seq: number): void {
  const proposal = state.proposals.get(change.id);
  if (!proposal) throw new ImpossibleRecord(`state change of ${change.id}, which was never submitted`);
  if (change.from !== proposal.state) throw new ImpossibleRecord(`${change.id} moves from ${change.from} but is ${proposal.state}`);
  if (!canMove(change.from, change.to)) {
    const what = proposal.decision ? `it was already ${proposal.decision.to} at seq ${proposal.decision.seq}` : `${change.from} cannot become ${change.to}`;
    throw new ImpossibleRecord(`${change.id} becomes ${change.to} but ${what}`);
  }
  const transition: Transition = {
    from: change.from,
    to: change.to,
    by: change.by,
    at: change.at,
    seq,
    ...(change.reason === undefined ? {} : { reason: change.reason }),
    ...(change.ratification === undefined ? {} : { ratification: change.ratification }),
  };
  proposal.state = change.to;
  proposal.history.push(transition);
  if (change.to === 'accepted' || change.to === 'rejected') proposal.decision = transition;
  if (change.to === 'accepted') state.acceptedOrder.push(change.id);
}

function alerted(state: QueueState, alert: AlertRecord, seq: number): void {
  state.alerts.push({ ...alert, seq });
  if (alert.alert !== 'decision_not_ratified') return;
  const proposal = state.proposals.get(alert.id);
  // An alert about a decision this log does not hold is kept as an alert; it holds nothing.
  if (proposal?.decision?.seq === alert.decision_seq) proposal.held = { reason: alert.message, at: alert.at, seq };
}

function applying(state: QueueState, intent: ApplyingRecord, seq: number): void {
  const proposal = state.proposals.get(intent.id);
  if (!proposal || proposal.state !== 'accepted' || proposal.kind !== 'memory-promotion') {
    throw new ImpossibleRecord(`${intent.id} is being applied but is not an accepted memory promotion`);
  }
  if (proposal.applied || state.applying.has(intent.id)) throw new ImpossibleRecord(`${intent.id} is applied twice`);
  if (state.applying.size > 0) throw new ImpossibleRecord(`${intent.id} is applied while ${[...state.applying.keys()][0]} is still being applied`);
  state.applying.set(intent.id, { ...intent, seq });
}

function applied(state: QueueState, record: AppliedRecord, seq: number): void {
  const proposal = state.proposals.get(record.id);
  if (!proposal || proposal.state !== 'accepted') throw new ImpossibleRecord(`${record.id} is applied but was never accepted`);
  if (proposal.applied) throw new ImpossibleRecord(`${record.id} is applied twice (first at seq ${proposal.applied.seq})`);
  if (record.kind !== proposal.kind) throw new ImpossibleRecord(`${record.id} is applied as ${record.kind} but is a ${proposal.kind}`);
  const memory = record.effect.status === 'applied';
  if (memory !== (proposal.kind === 'memory-promotion')) throw new ImpossibleRecord(`${record.id}: only memory promotions change long-term.md at a cycle boundary`);
  if (memory && !state.applying.has(record.id)) throw new ImpossibleRecord(`${record.id} changed long-term.md without announcing it first`);
  state.applying.delete(record.id);
  proposal.applied = { at: record.at, seq, effect: record.effect };
  if (record.effect.status === 'applied') state.longTerm = { size: record.effect.size_after, sha256: record.effect.sha256_after, id: record.id, seq };
}

/** Proposals in submission order. */
export function proposalsOf(state: QueueState): Proposal[] {
  return [...state.proposals.values()];
}

export function openProposals(state: QueueState): Proposal[] {
  return proposalsOf(state).filter((p) => OPEN_STATES.has(p.state));
}

/** Accepted proposals not yet applied, in the order they were accepted. */
export function unappliedAccepted(state: QueueState): Proposal[] {
  return state.acceptedOrder.map((id) => state.proposals.get(id)!).filter((p) => !p.applied);
}
