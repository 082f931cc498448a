/** The asynchronous review queue (human in the loop): see README.md in this folder. */
export { ReviewQueue, openReviewQueue, openPersonaReviewQueue, applyAccepted, isOverdue, parseReviewPolicy, reviewEventsOf, type ReviewQueueOptions, type WithEvents, type At } from './queue.ts';
export { reviewPolicySchema, DEFAULT_REVIEW_POLICY, type ReviewPolicy } from '../../kernel/personas/review-policy.ts';
export {
  PROPOSAL_KINDS,
  PROPOSAL_STATES,
  RECORD_TYPES,
  REVIEW_SCHEMA_VERSION,
  type ProposalInput,
  type ProposalKind,
  type ProposalState,
  type EvidenceRef,
  type AppliedEffect,
} from './records.ts';
export type { Proposal, Transition, QueueState } from './state.ts';
export type { ReviewEvent, Refusal, SubmitOutcome, Decision } from './operations.ts';
export type { ApplyOutcome } from './apply.ts';
export { memoryBlock } from './apply.ts';
export { reviewPaths, proposalId, parseProposalId, PROPOSAL_LOG_RELATIVE, LONG_TERM_MEMORY_RELATIVE, type ReviewPaths } from './paths.ts';
export { reviewStorage, fileReviewStorage, configuredBackend, type ReviewStorage, type ReviewBackend } from './storage.ts';
export { checkRatification, checkSignature, checkEvidence, signDecision, proposalDigest, decisionMessage, type RatifyContext, type RatificationVerdict } from './ratify.ts';
export { evidenceDigest } from './evidence.ts';
export { initOperator, trustOperator, loadOperatorKey, loadOperatorTrust, operatorHome, publicKeyPem, OPERATOR_HOME_ENV, type OperatorKey, type OperatorTrust } from './operators.ts';
export { OperatorTrustSource, type TrustNow } from './trust-source.ts';
export { reviewAttention, type ReviewAttention, type ReviewAlert } from './attention.ts';
export { submitAgentProposal, PROPOSE_TOOL, PROPOSALS_TOOL, MAX_AGENT_PROPOSAL_BYTES, type AgentAnswer } from './agent-proposals.ts';
