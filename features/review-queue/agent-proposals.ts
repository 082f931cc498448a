/**
 * Proposals from a persona's own agents: a plugin through `Runtimectl.bindings.proposals`, an
 * executor session through the `review.propose` MCP tool. Both land here, and both get an
 * answer, never an exception: the loop that made the call goes on whatever the queue says.
 *
 *   queued    {status: "queued", id, kind, expires_at, evidence: [{ref, digest}]}
 *   refused   {status: "refused", reason, code, message, ...}: `invalid` (not a proposal),
 *             `too_large` (over MAX_AGENT_PROPOSAL_BYTES), `evidence` (not a file or event of
 *             the persona; one message whether or not a path outside exists), `max_pending`,
 *             `rate_limit`, `proposer_rate_limit` (backpressure, with `retry_after_seconds`
 *             when waiting helps and `recorded`: whether this refusal wrote the log's refusal
 *             and alert or repeats one), `unavailable` (the queue could not be changed now:
 *             its lock held too long, its log unreadable)
 *
 * Who proposes is the kernel's to say: `proposer` is `plugin:<id>` for a binding call and
 * `agent:<executor>` for a session's tool call, and `origin` records the way in, plugin, tool,
 * session and cycle. Evidence is named by the agent (`events#SEQ`, a path relative to the
 * persona folder, `workspace:PATH`) and digested here, at submission; a digest the agent
 * gives must match. Nothing the agent sends is trusted for more than it is: the schema is the
 * queue's own (records.ts), the size is capped before anything is read, and evidence is
 * resolved only inside the persona's folder (evidence.ts).
 */
import { z } from 'zod';
import { isKernelError, type ErrorCode } from '../../kernel/errors.ts';
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { describeZodError } from '../../kernel/manifest/load.ts';
import { submissionEvidence } from './evidence.ts';
import type { ReviewEvent } from './operations.ts';
import type { ReviewQueue } from './queue.ts';
import { memoryPromotionContentSchema, skillDraftContentSchema, isSafeRelativePath, type EvidenceRef, type ProposalInput, type ProposalOrigin } from './records.ts';
import type { Proposal } from './state.ts';

/** Largest proposal an agent may send (its JSON): a memory promotion's 64 KiB text with room, a profile or plugin file of a few hundred KiB. */
export const MAX_AGENT_PROPOSAL_BYTES = 512 * 1024;
/** Largest evidence file an agent's proposal may rest on (it is read whole, on the loop's thread, to be digested). */
export const MAX_AGENT_EVIDENCE_BYTES = 32 * 1024 * 1024;

/** The MCP tools a persona that may propose offers its agents (kernel tools, not a plugin's: two dotted parts, which no plugin tool has). */
export const PROPOSE_TOOL = 'review.propose';
export const PROPOSALS_TOOL = 'review.proposals';

const evidenceItem = z.union([
  z.string().min(1).max(1000),
  z.strictObject({ ref: z.string().min(1).max(1000), digest: z.string().max(200).optional() }),
]);
const evidence = z.array(evidenceItem).min(1, 'a proposal must rest on at least one piece of evidence').max(64);
const repoPath = z.string().min(1).max(1000).refine(isSafeRelativePath, 'must be a normalised relative path (no "..", not absolute)');

/** What an agent sends: the queue's kinds, evidence named (digests optional), no proposer (the kernel says who). */
export const agentProposalSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('memory-promotion'), text: memoryPromotionContentSchema.shape.text, evidence }),
  z.strictObject({ kind: z.literal('skill-draft'), skill: skillDraftContentSchema.shape.skill, package: evidenceItem, evidence }),
  z.strictObject({ kind: z.literal('profile-change'), path: repoPath, content: z.string().max(MAX_AGENT_PROPOSAL_BYTES), evidence }),
  z.strictObject({ kind: z.literal('plugin-change'), path: repoPath, content: z.string().max(MAX_AGENT_PROPOSAL_BYTES), evidence }),
]);

/** The JSON Schema the review.propose tool declares (MCP's inputSchema). */
export const AGENT_PROPOSAL_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    kind: { type: 'string', enum: ['memory-promotion', 'skill-draft', 'profile-change', 'plugin-change'], description: 'what the proposal changes' },
    text: { type: 'string', description: 'memory-promotion: the text appended to long-term memory once an operator accepts it (at most 64 KiB)' },
    skill: { type: 'string', description: 'skill-draft: the skill name, e.g. persona/ada/triage' },
    package: { description: 'skill-draft: its gate evidence package (manifest.json), as an evidence ref' },
    path: { type: 'string', description: 'profile-change, plugin-change: the repository file the content replaces' },
    content: { type: 'string', description: 'profile-change, plugin-change: the proposed file content' },
    evidence: {
      type: 'array',
      minItems: 1,
      maxItems: 64,
      description: 'what the proposal rests on: "workspace:PATH" (a file in your workspace), a path relative to the persona folder, or "events#SEQ"; a string, or {ref, digest} to insist on a digest (sha256:<hex>)',
      items: { anyOf: [{ type: 'string' }, { type: 'object', properties: { ref: { type: 'string' }, digest: { type: 'string' } }, required: ['ref'] }] },
    },
  },
  required: ['kind', 'evidence'],
};

export type AgentRefusalReason = 'invalid' | 'too_large' | 'evidence' | 'max_pending' | 'rate_limit' | 'proposer_rate_limit' | 'unavailable';

export type AgentAnswer =
  | { status: 'queued'; id: string; kind: string; proposer: string; expires_at: string; evidence: EvidenceRef[] }
  | {
      status: 'refused';
      reason: AgentRefusalReason;
      code: ErrorCode;
      message: string;
      /** backpressure: waiting this long frees a place (rate limits); absent when only a decision does (max_pending) */
      retry_after_seconds?: number;
      /** backpressure: this refusal wrote the refusal and alert records (false: it repeats ones written a moment ago) */
      recorded?: boolean;
    };

/** Who is calling, as the kernel knows it. */
export interface AgentCaller extends ProposalOrigin {}

/** The proposer name a caller is recorded and rate-limited under. */
export function proposerOf(origin: AgentCaller): string {
  if (origin.via === 'binding') return `plugin:${origin.plugin ?? 'unknown'}`;
  if (origin.via === 'mcp') return `agent:${origin.plugin ?? 'mcp'}`;
  return 'cli:tools-call';
}

export interface AgentProposalHost {
  personaDir: string;
  /** the queue to submit through (the runtime's, which hands its records to the event log) */
  queue: () => ReviewQueue;
  /** the persona's events after a seq (only the segments holding them), for `events#SEQ` evidence */
  eventsAfter: (afterSeq: number) => Iterable<EventEnvelope>;
  now: () => number;
}

export interface AgentSubmission {
  answer: AgentAnswer;
  /** records the queue appended (and records other processes appended since, when the queue mirrors): for the event log */
  events: ReviewEvent[];
}

function refused(reason: AgentRefusalReason, code: ErrorCode, message: string, extra: Partial<Extract<AgentAnswer, { status: 'refused' }>> = {}): AgentSubmission {
  return { answer: { status: 'refused', reason, code, message, ...extra }, events: [] };
}

/** The queue's input for a checked agent proposal, its evidence resolved and digested. */
function queueInput(value: z.output<typeof agentProposalSchema>, host: AgentProposalHost, origin: AgentCaller): ProposalInput {
  const sources = { personaDir: host.personaDir, eventsAfter: host.eventsAfter, maxBytes: MAX_AGENT_EVIDENCE_BYTES };
  const refs = (items: z.output<typeof evidence>) => submissionEvidence(items.map((e) => (typeof e === 'string' ? { ref: e } : e)), sources);
  const base = { proposer: proposerOf(origin), origin, evidence: refs(value.evidence) };
  switch (value.kind) {
    case 'memory-promotion':
      return { ...base, kind: value.kind, text: value.text };
    case 'skill-draft':
      return { ...base, kind: value.kind, skill: value.skill, package: refs([value.package])[0]! };
    default:
      return { ...base, kind: value.kind, path: value.path, content: value.content };
  }
}

/** Checks, digests and submits one agent proposal; always an answer (see the top of this file). */
export function submitAgentProposal(host: AgentProposalHost, raw: unknown, origin: AgentCaller): AgentSubmission {
  let text: string | undefined;
  try {
    text = JSON.stringify(raw);
  } catch {
    text = undefined;
  }
  if (text === undefined) return refused('invalid', 'RTC_ERR_REVIEW_INVALID', "proposal: not JSON data (an object with kind, evidence and the kind's fields)");
  const size = Buffer.byteLength(text, 'utf8');
  if (size > MAX_AGENT_PROPOSAL_BYTES) {
    return refused('too_large', 'RTC_ERR_REVIEW_TOO_LARGE', `proposal: ${size} bytes of JSON; an agent's proposal may have at most ${MAX_AGENT_PROPOSAL_BYTES} (put the bulk in a file and name it as evidence)`);
  }
  const parsed = agentProposalSchema.safeParse(raw);
  if (!parsed.success) {
    const { field, reason } = describeZodError(parsed.error);
    return refused('invalid', 'RTC_ERR_REVIEW_INVALID', `proposal: ${field}: ${reason}`);
  }
  let input: ProposalInput;
  try {
    input = queueInput(parsed.data, host, origin);
  } catch (error) {
    if (isKernelError(error)) return refused(error.code === 'RTC_ERR_REVIEW_EVIDENCE' ? 'evidence' : 'invalid', error.code, error.message);
    throw error;
  }
  try {
    const outcome = host.queue().submit(input, { now: host.now() });
    if (outcome.status === 'queued') {
      const p = outcome.proposal;
      return { answer: { status: 'queued', id: p.id, kind: p.kind, proposer: p.proposer, expires_at: new Date(p.expires_at).toISOString(), evidence: p.evidence }, events: outcome.events };
    }
    const r = outcome.refusal;
    const retry = r.window_seconds === undefined ? {} : { retry_after_seconds: r.window_seconds };
    return { answer: { status: 'refused', reason: r.reason, code: 'RTC_ERR_REVIEW_BACKPRESSURE', message: `proposal refused (${r.reason}): ${r.message}; nothing already queued was dropped`, ...retry, recorded: r.recorded }, events: outcome.events };
  } catch (error) {
    if (!isKernelError(error)) throw error;
    return refused(error.code === 'RTC_ERR_REVIEW_INVALID' ? 'invalid' : 'unavailable', error.code, error.message);
  }
}

/** What an agent may read back about the persona's proposals: state and decision, newest last, at most `limit`. */
export function agentProposalList(queue: ReviewQueue, limit = 50): Record<string, unknown>[] {
  if (!queue.hasRecords()) return [];
  return queue
    .list()
    .slice(-limit)
    .map((p: Proposal) => ({
      id: p.id,
      kind: p.kind,
      proposer: p.proposer,
      state: p.state,
      created_at: new Date(p.created_at).toISOString(),
      expires_at: new Date(p.expires_at).toISOString(),
      ...(p.decision ? { decision: { to: p.decision.to, by: p.decision.by, ...(p.decision.reason === undefined ? {} : { reason: p.decision.reason }) } } : {}),
      ...(p.applied ? { applied: p.applied.effect.status } : p.held ? { held: p.held.reason } : {}),
    }));
}
