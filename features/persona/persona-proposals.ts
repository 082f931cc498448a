/**
 * A running persona's side of the review queue: what its agents propose, what its event log
 * hears of the queue, and what each cycle says of it.
 *
 *   - Its agents propose through `Runtimectl.bindings.proposals` (a plugin that declares the
 *     binding, in a persona that grants it) and the `review.propose` tool its executor
 *     sessions are offered over MCP (features/review-queue/agent-proposals.ts). The persona's profile
 *     allows both with `bindings: [proposals]`. The call answers at once, queued or refused,
 *     and never fails the cycle; nothing waits for a decision.
 *   - Every change it makes to the queue goes through one ReviewQueue that mirrors (queue.ts):
 *     the records of its own changes, and those other processes appended since (an operator's
 *     decision in a shell or the console, a refused decision, a CLI submission), reach the
 *     persona's event log as events, so `runtimectl logs` and the console see all of them.
 *   - A refusal of a malformed, oversized or unevidenced proposal is an event too
 *     (`proposal_input_refused`), at most INPUT_REFUSALS_LOGGED a cycle; the cycle event
 *     counts them all, so a looping agent cannot grow the log without bound.
 */
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { errorLine, kernelError } from '../../kernel/errors.ts';
import {
  agentProposalList,
  AGENT_PROPOSAL_JSON_SCHEMA,
  PROPOSALS_TOOL,
  PROPOSE_TOOL,
  proposerOf,
  submitAgentProposal,
  type AgentAnswer,
  type AgentCaller,
} from '../review-queue/agent-proposals.ts';
import type { ReviewEvent } from '../review-queue/operations.ts';
import type { ReviewQueue } from '../review-queue/queue.ts';
import { WORKSPACE_REF_PREFIX } from '../review-queue/evidence.ts';
import { WORKSPACE_EVIDENCE_DIR } from '../review-queue/paths.ts';
import type { PersonaProfile } from '../../kernel/personas/profile-schema.ts';
import type { ToolInfo } from './tools/call-tool.ts';

/** Input refusals written as events per cycle (or per tools-only session); the rest are counted. */
export const INPUT_REFUSALS_LOGGED = 10;

/** The executor session running now, when the loop's decide step says so (its MCP calls are from it). */
export interface RunningSession {
  run_id: string;
  executor: string;
}

export interface PersonaProposalsHost {
  profile: Pick<PersonaProfile, 'id' | 'bindings'>;
  personaDir: string;
  /** the runtime's mirroring queue */
  queue(): ReviewQueue;
  eventsAfter(afterSeq: number): Iterable<EventEnvelope>;
  clock(): number;
  /** appends to the persona's event log (scrubbed) */
  append(type: string, payload: Record<string, unknown>): Promise<unknown>;
  /** a change's events are in the event log: keep where it stands (features/review-queue/mirror.ts) */
  mirrored(): void;
  /** the cycle running now (null between cycles, or in a tools-only session) */
  cycle(): number | null;
  session(): RunningSession | null;
}

/** What a cycle's event says of proposals made during it. */
export interface CycleProposals {
  queued: string[];
  refused: number;
  /** alerts written during the cycle (backpressure, refused decisions seen at a change) */
  alerts: { alert: string; message: string; proposal_log_seq: number }[];
}

export class PersonaProposals {
  readonly #host: PersonaProposalsHost;
  #cycle: CycleProposals = { queued: [], refused: 0, alerts: [] };
  #inputRefusalsLogged = 0;

  constructor(host: PersonaProposalsHost) {
    this.#host = host;
  }

  /** The profile lets the persona's agents propose (`bindings: [proposals]`). */
  get allowed(): boolean {
    return this.#host.profile.bindings.includes('proposals');
  }

  /** A new cycle: what the next cycle event reports starts empty. */
  beginCycle(): void {
    this.#cycle = { queued: [], refused: 0, alerts: [] };
    this.#inputRefusalsLogged = 0;
  }

  /** What this cycle's proposals and alerts were, for its event (undefined when nothing happened). */
  cycleReport(): CycleProposals | undefined {
    const c = this.#cycle;
    return c.queued.length === 0 && c.refused === 0 && c.alerts.length === 0 ? undefined : structuredClone(c);
  }

  /** Appends a queue change's events to the persona's log, noting the alerts among them. */
  async record(events: readonly ReviewEvent[]): Promise<void> {
    for (const event of events) {
      if (event.type === 'operator_alert') {
        const p = event.payload as { alert: string; message: string; proposal_log_seq: number };
        this.#cycle.alerts.push({ alert: p.alert, message: p.message, proposal_log_seq: p.proposal_log_seq });
      }
      await this.#host.append(event.type, event.payload);
    }
    this.#host.mirrored();
  }

  /** One proposal from an agent: checked, submitted, its records logged; always an answer. */
  async submit(raw: unknown, caller: Omit<AgentCaller, 'cycle' | 'run_id'>): Promise<AgentAnswer> {
    const host = this.#host;
    const cycle = host.cycle();
    const session = caller.via === 'mcp' ? host.session() : null;
    const origin: AgentCaller = {
      ...caller,
      ...(session ? { run_id: session.run_id, plugin: session.executor } : {}),
      ...(cycle === null ? {} : { cycle }),
    };
    if (!this.allowed) {
      return { status: 'refused', reason: 'invalid', code: 'RTC_ERR_REVIEW_NOT_ALLOWED', message: `persona ${host.profile.id} does not let its agents propose (its profile's bindings do not include proposals)` };
    }
    let outcome;
    try {
      outcome = submitAgentProposal({ personaDir: host.personaDir, queue: () => host.queue(), eventsAfter: (seq) => host.eventsAfter(seq), now: () => host.clock() }, raw, origin);
    } catch (error) {
      // Not a refusal the queue made: still an answer, never the cycle's failure.
      outcome = { answer: { status: 'refused' as const, reason: 'unavailable' as const, code: 'RTC_ERR_REVIEW_LOG_CORRUPT' as const, message: errorLine(error) }, events: [] };
    }
    await this.record(outcome.events);
    const answer = outcome.answer;
    if (answer.status === 'queued') this.#cycle.queued.push(answer.id);
    else {
      this.#cycle.refused += 1;
      // Backpressure is in the proposal log (refusal and alert, once per episode); a bad proposal is an event.
      const input = answer.reason === 'invalid' || answer.reason === 'too_large' || answer.reason === 'evidence' || answer.reason === 'unavailable';
      if (input && this.#inputRefusalsLogged < INPUT_REFUSALS_LOGGED) {
        this.#inputRefusalsLogged += 1;
        await host.append('proposal_input_refused', { persona: host.profile.id, proposer: proposerOf(origin), origin, reason: answer.reason, code: answer.code, message: answer.message });
      }
    }
    return answer;
  }

  /** The persona's proposals as its agents may read them. */
  list(): Record<string, unknown>[] {
    return agentProposalList(this.#host.queue());
  }

  /** The binding's implementation (BindingImplementations.proposals). */
  binding(): { submit(proposal: unknown, by: string): Promise<unknown>; list(by: string): Record<string, unknown>[] } {
    return {
      submit: (proposal, by) => this.submit(proposal, { via: 'binding', plugin: by }),
      list: () => this.list(),
    };
  }

  /** The kernel's own tools the persona offers its agents: review.propose and review.proposals, when it may propose. */
  tools(): ToolInfo[] {
    if (!this.allowed) return [];
    return [
      {
        name: PROPOSE_TOOL,
        plugin: 'kernel',
        export: 'propose',
        source: 'kernel',
        description: `Propose a change to your persona's ratified state (long-term memory, a skill, a profile or plugin file) to its operators' review queue. An operator decides; an accepted proposal takes effect at a later cycle boundary, so do not wait for it. Every proposal rests on evidence that exists now: "${WORKSPACE_REF_PREFIX}PATH" for a file in your workspace (${WORKSPACE_EVIDENCE_DIR}/PATH in the persona folder), a path relative to the persona folder, or "events#SEQ". The answer is {status: "queued", id, ...} or {status: "refused", reason, message} (a tool error): invalid, too_large, evidence, max_pending, rate_limit or proposer_rate_limit (retry_after_seconds says when to try again).`,
        input_schema: AGENT_PROPOSAL_JSON_SCHEMA,
      },
      {
        name: PROPOSALS_TOOL,
        plugin: 'kernel',
        export: 'proposals',
        source: 'kernel',
        description: "Your persona's proposals (the latest 50): state (pending, under-review, accepted, rejected, expired), the decision and its reason, and whether an accepted one was applied or is held.",
        input_schema: { type: 'object', properties: {}, additionalProperties: false },
      },
    ];
  }

  isTool(name: string): boolean {
    return name === PROPOSE_TOOL || name === PROPOSALS_TOOL;
  }

  /** A call of one of tools(): the proposal's answer, or the list. */
  async callTool(name: string, args: unknown, via: 'mcp' | 'cli' | 'binding'): Promise<unknown> {
    if (!this.allowed) {
      throw kernelError('RTC_ERR_TOOL_UNKNOWN', `persona ${this.#host.profile.id} has no tool "${name}" (review tools are offered when its profile's bindings include proposals)`, { details: { tool: name } });
    }
    if (name === PROPOSALS_TOOL) return { proposals: this.list() };
    return this.submit(args, { via: via === 'binding' ? 'binding' : via, tool: name });
  }
}
