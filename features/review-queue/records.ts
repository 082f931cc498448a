/**
 * What the proposal log holds. Each line is an event-log envelope (same `v`, `seq`, `prev`,
 * `hash` chain, same canonical JSON and sha256; see kernel/events/envelope.ts); its `type`
 * is one of RECORD_TYPES and its payload, checked by the schemas here, carries
 * `schema_version`. Times are logical epoch milliseconds given by the caller; the envelope's
 * `at` is the same time as ISO text, so the file is a function of its inputs.
 *
 * A proposal's state is never stored as a field to edit: it is what replaying these
 * records gives (features/review-queue/state.ts).
 */
import { segmentHeaderSchema } from '../../kernel/events/segment-header.ts';
import path from 'node:path';
import { z } from 'zod';
import { PERSONA_ID_PATTERN } from '../../kernel/ids.ts';

export const REVIEW_SCHEMA_VERSION = 1;

export const PROPOSAL_KINDS = ['memory-promotion', 'skill-draft', 'profile-change', 'plugin-change'] as const;
export type ProposalKind = (typeof PROPOSAL_KINDS)[number];

export const PROPOSAL_STATES = ['pending', 'under-review', 'accepted', 'rejected', 'expired'] as const;
export type ProposalState = (typeof PROPOSAL_STATES)[number];

/** Pending and under-review proposals are open: they count against max_pending and can expire. */
export const OPEN_STATES: ReadonlySet<ProposalState> = new Set(['pending', 'under-review']);

export const RECORD_TYPES = {
  submitted: 'proposal_submitted',
  state: 'proposal_state',
  refused: 'proposal_refused',
  alert: 'operator_alert',
  applying: 'proposal_applying',
  applied: 'proposal_applied',
  repaired: 'log_repaired',
  /** the header that opens each segment after the first (features/history-segments): no change to any proposal */
  segment: 'log_segment',
} as const;

/** The latest logical time we accept: the last millisecond of year 9999, so `at` stays ISO. */
export const MAX_TIME = 253_402_300_799_999;

export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;
const digest = z.string().regex(DIGEST_PATTERN, 'must be sha256:<64 lower-case hex digits>');
const time = z.number().int().min(0).max(MAX_TIME);
const version = z.literal(REVIEW_SCHEMA_VERSION);
const kind = z.enum(PROPOSAL_KINDS);
const state = z.enum(PROPOSAL_STATES);
/** Who proposed or decided: one line of plain text (it lands in long-term.md's headers). */
export const actorSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._@:+\/-]*$/, 'must start with a letter or digit and hold only letters, digits, spaces and . _ @ : + / -');
const reason = z.string().min(1).max(4000);
const id = z.string().regex(/^P-[a-z0-9][a-z0-9_-]*-[1-9][0-9]*$/, 'must be P-<persona>-<n>');
const persona = z.string().regex(PERSONA_ID_PATTERN);

export const evidenceRefSchema = z.strictObject({
  ref: z.string().min(1).max(1000).describe('what the evidence is: a path, an event seq, a gate package'),
  digest: digest.describe('sha256 of the evidence as it was when proposed'),
});
export type EvidenceRef = z.output<typeof evidenceRefSchema>;

/** A repository path such as `policies/personas/jerome.yaml`: relative, normalised, no `..`. */
export function isSafeRelativePath(p: string): boolean {
  if (p === '' || p.includes('\\') || p.includes('\0') || path.posix.isAbsolute(p)) return false;
  return path.posix.normalize(p) === p && !p.split('/').some((segment) => segment === '..' || segment === '.' || segment === '');
}
const repoPath = z.string().min(1).max(1000).refine(isSafeRelativePath, 'must be a normalised relative path (no "..", not absolute)');

export const memoryPromotionContentSchema = z.strictObject({
  text: z.string().min(1).max(65_536).refine((t) => t.trim() !== '', 'must not be blank'),
});
export const skillDraftContentSchema = z.strictObject({
  skill: z.string().min(1).max(200).regex(/^[a-z0-9][a-z0-9/_-]*$/, 'a skill name such as persona/jerome/triage'),
  package: evidenceRefSchema.describe('the gate evidence package the draft passed, and its digest'),
});
export const fileChangeContentSchema = z.strictObject({
  path: repoPath.describe('the file the change replaces'),
  content_digest: digest.describe('sha256 of the proposed content, stored under review/blobs/'),
  bytes: z.number().int().min(0),
});

/**
 * Who proposed, as the kernel saw the call (never as the proposer claims it): the way in
 * (`binding`: a plugin through Runtimectl.bindings.proposals; `mcp`: an agent's session
 * through the review.propose tool; `cli`: `proposals submit` or `tools call`), the plugin,
 * the tool, the executor session and the cycle. Absent on proposals made before it existed
 * and on those an operator's own tools make (the gate).
 */
export const PROPOSAL_VIAS = ['binding', 'mcp', 'cli'] as const;
export const proposalOriginSchema = z.strictObject({
  via: z.enum(PROPOSAL_VIAS),
  plugin: z.string().min(1).max(200).regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/).optional().describe('the plugin that called the binding, or the executor whose session called the tool'),
  tool: z.string().min(1).max(200).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/).optional().describe('the tool the agent called'),
  // `run_id`, not `session`: redaction takes a scalar named session for a cookie.
  run_id: z.string().min(1).max(200).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/).optional().describe('the executor session (its run id) the call came from'),
  cycle: z.number().int().min(0).optional().describe('the cycle that was running'),
});
export type ProposalOrigin = z.output<typeof proposalOriginSchema>;

const proposalBase = {
  schema_version: version,
  id,
  persona,
  proposer: actorSchema,
  origin: proposalOriginSchema.optional(),
  created_at: time,
  expires_at: time,
  evidence: z.array(evidenceRefSchema).min(1).max(64),
};

export const proposalRecordSchema = z.discriminatedUnion('kind', [
  z.strictObject({ ...proposalBase, kind: z.literal('memory-promotion'), content: memoryPromotionContentSchema }),
  z.strictObject({ ...proposalBase, kind: z.literal('skill-draft'), content: skillDraftContentSchema }),
  z.strictObject({ ...proposalBase, kind: z.literal('profile-change'), content: fileChangeContentSchema }),
  z.strictObject({ ...proposalBase, kind: z.literal('plugin-change'), content: fileChangeContentSchema }),
]);
export type ProposalRecord = z.output<typeof proposalRecordSchema>;
export type MemoryPromotionContent = z.output<typeof memoryPromotionContentSchema>;
export type SkillDraftContent = z.output<typeof skillDraftContentSchema>;
export type FileChangeContent = z.output<typeof fileChangeContentSchema>;

/**
 * An operator's signature on a decision (ratify.ts): the key's fingerprint, the digest of the
 * proposal decided, and an Ed25519 signature over the decision. (Named so that redaction,
 * which replaces anything under an `auth*` key, leaves it readable.)
 */
export const ratificationSchema = z.strictObject({
  scheme: z.literal('ed25519'),
  key_fingerprint: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be sha256:<64 lower-case hex digits>'),
  proposal_digest: digest,
  signature: z.string().regex(/^[0-9a-f]{128}$/, 'must be 128 lower-case hex digits (an Ed25519 signature)'),
});
export type Ratification = z.output<typeof ratificationSchema>;

export const stateChangeSchema = z.strictObject({
  schema_version: version,
  id,
  from: state,
  to: state,
  by: actorSchema,
  at: time,
  reason: reason.optional(),
  ratification: ratificationSchema.optional(),
});
export type StateChangeRecord = z.output<typeof stateChangeSchema>;

/** max_pending: too many open at once; rate_limit: too many queued in the window; proposer_rate_limit: too many from this proposer in its window. */
export const REFUSAL_REASONS = ['max_pending', 'rate_limit', 'proposer_rate_limit'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export const refusalSchema = z.strictObject({
  schema_version: version,
  persona,
  kind,
  proposer: actorSchema,
  origin: proposalOriginSchema.optional(),
  at: time,
  reason: z.enum(REFUSAL_REASONS),
  limit: z.number().int().min(0),
  observed: z.number().int().min(0),
  window_seconds: z.number().int().min(1).optional(),
  /** sha256 of the refused proposal's canonical JSON: the same proposal refused twice has one digest. */
  proposal_digest: digest,
  evidence: z.array(evidenceRefSchema),
});
export type RefusalRecord = z.output<typeof refusalSchema>;

export const alertSchema = z.discriminatedUnion('alert', [
  z.strictObject({
    schema_version: version,
    alert: z.literal('review_backpressure'),
    persona,
    at: time,
    message: z.string().min(1).max(1000),
    refusal_seq: z.number().int().min(1),
  }),
  // An accepted proposal the loop did not apply: its decision is not ratified by a trusted
  // operator, or its evidence no longer matches. Recorded once per decision.
  z.strictObject({
    schema_version: version,
    alert: z.literal('decision_not_ratified'),
    persona,
    at: time,
    message: z.string().min(1).max(1000),
    id,
    decision_seq: z.number().int().min(1),
  }),
  // A decision refused when it was being recorded (the CLI, the console): its signature is not
  // a trusted operator's, or it covers another proposal, persona or state. Nothing was decided.
  z.strictObject({
    schema_version: version,
    alert: z.literal('decision_refused'),
    persona,
    at: time,
    message: z.string().min(1).max(1000),
    id,
    to: state,
    by: actorSchema,
    key_fingerprint: z.string().regex(/^sha256:[0-9a-f]{64}$/).optional(),
  }),
]);
export type AlertRecord = z.output<typeof alertSchema>;

/** Written and synced before long-term.md is touched, so a crash in between is finished, not repeated. */
export const applyingSchema = z.strictObject({
  schema_version: version,
  id,
  at: time,
  file: z.literal('brain/memory/long-term.md'),
  offset: z.number().int().min(0),
  before_sha256: digest,
  block_sha256: digest,
  block_bytes: z.number().int().min(1),
});
export type ApplyingRecord = z.output<typeof applyingSchema>;

export const appliedSchema = z.strictObject({
  schema_version: version,
  id,
  kind,
  at: time,
  accepted_by: actorSchema,
  accepted_at: time,
  effect: z.discriminatedUnion('status', [
    z.strictObject({
      status: z.literal('applied'),
      file: z.literal('brain/memory/long-term.md'),
      offset: z.number().int().min(0),
      bytes: z.number().int().min(1),
      size_after: z.number().int().min(0),
      sha256_after: digest,
    }),
    z.strictObject({
      status: z.literal('awaiting-operator'),
      action: z.string().min(1).max(1000),
      skill: z.string().optional(),
      package: evidenceRefSchema.optional(),
      path: repoPath.optional(),
      content_digest: digest.optional(),
      blob: z.string().optional(),
    }),
  ]),
});
export type AppliedRecord = z.output<typeof appliedSchema>;
export type AppliedEffect = AppliedRecord['effect'];

export const repairedSchema = z.strictObject({
  schema_version: version,
  reason: z.literal('torn last line'),
  at: time,
  line: z.number().int().min(1),
  offset: z.number().int().min(0),
  removed_bytes: z.number().int().min(1),
  saved_as: z.string().min(1),
});

export const PAYLOAD_SCHEMAS: Record<string, z.ZodType> = {
  [RECORD_TYPES.submitted]: z.strictObject({ schema_version: version, proposal: proposalRecordSchema }),
  [RECORD_TYPES.state]: stateChangeSchema,
  [RECORD_TYPES.refused]: refusalSchema,
  [RECORD_TYPES.alert]: alertSchema,
  [RECORD_TYPES.applying]: applyingSchema,
  [RECORD_TYPES.applied]: appliedSchema,
  [RECORD_TYPES.repaired]: repairedSchema,
  [RECORD_TYPES.segment]: segmentHeaderSchema,
};

/** What a caller submits; the queue adds id, persona, times and (for file changes) the digest. */
const inputBase = {
  proposer: actorSchema,
  origin: proposalOriginSchema.optional(),
  evidence: z.array(evidenceRefSchema).min(1, 'a proposal must rest on at least one piece of evidence').max(64),
};
const fileContent = z.union([z.string(), z.instanceof(Uint8Array)]);
export const proposalInputSchema = z.discriminatedUnion('kind', [
  z.strictObject({ ...inputBase, kind: z.literal('memory-promotion'), text: memoryPromotionContentSchema.shape.text }),
  z.strictObject({ ...inputBase, kind: z.literal('skill-draft'), skill: skillDraftContentSchema.shape.skill, package: evidenceRefSchema }),
  z.strictObject({ ...inputBase, kind: z.literal('profile-change'), path: repoPath, content: fileContent }),
  z.strictObject({ ...inputBase, kind: z.literal('plugin-change'), path: repoPath, content: fileContent }),
]);
export type ProposalInput = z.input<typeof proposalInputSchema>;
