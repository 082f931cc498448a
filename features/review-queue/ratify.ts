/**
 * The ratification core: the one check that a review decision is an operator's, used when a
 * decision is recorded (the CLI signs it and checks it) and again when it takes effect (the
 * loop applies an accepted proposal only if it passes), and by any other front end (a web
 * console) through the same two functions: signDecision and checkRatification.
 *
 * A decision is ratified when:
 *   - it carries a signature (`ratification`) by an Ed25519 key in the operator trust list
 *     (operators.ts), whose name is the decision's `by`;
 *   - the signature verifies over the decision (persona, proposal id, from, to, by, at,
 *     reason) and the digest of the proposal as submitted, so it cannot be moved to another
 *     proposal, persona or state;
 *   - every piece of evidence the proposal rests on still has the digest it was proposed with
 *     (evidence.ts): a made-up digest that matches nothing is refused.
 * A record appended to the log by anyone else (a persona's executor running
 * `proposals accept --by alice`, or writing the log directly) fails the first test.
 */
import { createHash, sign, verify } from 'node:crypto';
import path from 'node:path';
import { canonicalJson } from '../../kernel/events/canonical.ts';
import type { OperatorKey, OperatorTrust } from './operators.ts';
import type { ProposalRecord, ProposalState, Ratification } from './records.ts';
import type { Proposal } from './state.ts';

const DOMAIN = 'runtimectl.review-decision/1';

/** The fields of a proposal as it was submitted (what a signature covers). */
export function proposalRecordOf(proposal: Proposal | ProposalRecord): ProposalRecord {
  const { schema_version, id, kind, persona, proposer, origin, created_at, expires_at, evidence, content } = proposal as ProposalRecord;
  // `origin` only when recorded: a proposal made before it existed keeps the digest it was signed over.
  return { schema_version, id, kind, persona, proposer, ...(origin === undefined ? {} : { origin }), created_at, expires_at, evidence, content } as ProposalRecord;
}

export function proposalDigest(proposal: Proposal | ProposalRecord): string {
  return `sha256:${createHash('sha256').update(canonicalJson(proposalRecordOf(proposal) as unknown as Record<string, unknown>)).digest('hex')}`;
}

export interface DecisionFields {
  persona: string;
  id: string;
  from: ProposalState;
  to: ProposalState;
  by: string;
  at: number;
  reason?: string;
}

/** The exact bytes a decision's signature is over. */
export function decisionMessage(fields: DecisionFields, proposalDigestText: string): Buffer {
  return Buffer.from(
    canonicalJson({ domain: DOMAIN, persona: fields.persona, id: fields.id, from: fields.from, to: fields.to, by: fields.by, at: fields.at, reason: fields.reason ?? null, proposal_digest: proposalDigestText }),
    'utf8',
  );
}

/** The operator's signature on a decision about `proposal`. */
export function signDecision(key: OperatorKey, proposal: Proposal | ProposalRecord, fields: DecisionFields): Ratification {
  const digest = proposalDigest(proposal);
  return { scheme: 'ed25519', key_fingerprint: key.fingerprint, proposal_digest: digest, signature: sign(null, decisionMessage(fields, digest), key.privateKey).toString('hex') };
}

export type RatificationVerdict = { ok: true; operator: string; fingerprint: string } | { ok: false; reason: string };

export interface RatifyContext {
  trust: OperatorTrust;
  /** the digest a piece of evidence has now, or undefined when it cannot be found or read (evidence.ts) */
  evidenceDigest: (ref: string) => string | undefined;
}

/** Whether the signature on a decision is a trusted operator's (without the evidence check). */
export function checkSignature(proposal: Proposal, decision: DecisionFields & { ratification?: Ratification }, trust: OperatorTrust): RatificationVerdict {
  const r = decision.ratification;
  if (trust.error !== undefined) return { ok: false, reason: `the operator trust list cannot be read (${trust.error}); no decision is ratified until it is fixed` };
  if (r === undefined) return { ok: false, reason: `the ${decision.to} decision by "${decision.by}" carries no operator signature (it was not made with an operator credential)` };
  const operator = trust.operators.find((o) => o.fingerprint === r.key_fingerprint);
  if (operator === undefined) {
    // The list by its file name, not its host path: this reason lands in logs and events.
    const known = trust.operators.length === 0 ? `no operator is trusted yet (the operator folder's ${path.basename(trust.source)} lists none)` : `trusted: ${trust.operators.map((o) => o.name).join(', ')}`;
    return { ok: false, reason: `the decision is signed by key ${r.key_fingerprint.slice(0, 23)}…, which is not a trusted operator's (${known})` };
  }
  if (operator.name !== decision.by) return { ok: false, reason: `the decision says it is by "${decision.by}" but is signed by operator "${operator.name}"` };
  const digest = proposalDigest(proposal);
  if (r.proposal_digest !== digest) return { ok: false, reason: `the signature covers another proposal (digest ${r.proposal_digest.slice(0, 19)}…, this one is ${digest.slice(0, 19)}…)` };
  let valid = false;
  try {
    valid = verify(null, decisionMessage(decision, digest), operator.publicKey, Buffer.from(r.signature, 'hex'));
  } catch {
    valid = false;
  }
  if (!valid) return { ok: false, reason: `the signature of operator "${operator.name}" does not verify over this decision (it was altered, or made for another one)` };
  return { ok: true, operator: operator.name, fingerprint: operator.fingerprint };
}

/** Every piece of evidence (and a skill draft's package) still has its proposed digest; the first that does not, or undefined. */
export function checkEvidence(proposal: Proposal | ProposalRecord, evidenceDigest: (ref: string) => string | undefined): string | undefined {
  const refs = [...proposal.evidence, ...(proposal.kind === 'skill-draft' ? [(proposal.content as { package: { ref: string; digest: string } }).package] : [])];
  for (const { ref, digest } of refs) {
    const actual = evidenceDigest(ref);
    if (actual === undefined) return `evidence ${ref} cannot be found or read, so its digest ${digest.slice(0, 19)}… cannot be checked`;
    if (actual !== digest) return `evidence ${ref} has digest ${actual.slice(0, 19)}…, not the proposed ${digest.slice(0, 19)}…`;
  }
  return undefined;
}

/** THE check: an accepted proposal takes effect only when this says ok. */
export function checkRatification(proposal: Proposal, context: RatifyContext): RatificationVerdict {
  const decision = proposal.decision;
  if (decision === undefined || decision.to !== 'accepted') return { ok: false, reason: `${proposal.id} is ${proposal.state}, not accepted` };
  const signature = checkSignature(proposal, { ...decision, persona: proposal.persona, id: proposal.id }, context.trust);
  if (!signature.ok) return signature;
  const evidence = checkEvidence(proposal, context.evidenceDigest);
  if (evidence !== undefined) return { ok: false, reason: evidence };
  return signature;
}
