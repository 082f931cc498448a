/**
 * The fleet's review queue as the console shows it: every persona's proposals (read-only,
 * through the queue's own replay), with the backpressure the queue recorded (refusals and
 * alerts) and each open proposal's expiry. Decisions are not made here: decide.ts.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { errorLine, isKernelError } from '../../kernel/errors.ts';
import { openPersonaReviewQueue, PROPOSAL_LOG_RELATIVE, type Proposal } from '../review-queue/index.ts';
import { PERSISTENCE_CONFIG_FILE } from '../persistence/state/persistence-config-schema.ts';
import { persistenceProvider } from '../persistence/provider.ts';
import { reviewAttention, type ReviewAttention } from '../review-queue/attention.ts';

export interface PersonaQueue {
  persona_id: string;
  proposals: Proposal[];
  /** open (pending or under-review) proposals now */
  open: number;
  refusals: { at: number; reason: string; limit: number; observed: number; kind: string; proposer: string }[];
  /** held proposals and the alerts of the last 24 h (features/review-queue/attention.ts) */
  attention?: ReviewAttention;
  /** why the queue could not be read, as one line (`RTC_ERR_X: message`) */
  error?: string;
  /** the same without its code: the code is data, never cut back out of `error` */
  errorMessage?: string;
}

/** Persona folders that may hold a review queue: a proposal log, or a persistence backend. */
export function personasWithQueues(stateDir: string): string[] {
  if (!existsSync(stateDir)) return [];
  return readdirSync(stateDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && (existsSync(path.join(stateDir, d.name, PROPOSAL_LOG_RELATIVE)) || existsSync(path.join(stateDir, d.name, PERSISTENCE_CONFIG_FILE))))
    .map((d) => d.name)
    .sort();
}

export async function personaQueue(stateDir: string, personaId: string, nowMs = Date.now()): Promise<PersonaQueue> {
  try {
    const queue = await openPersonaReviewQueue(path.join(stateDir, personaId), persistenceProvider, { readonly: true });
    try {
      const state = queue.read();
      const proposals = [...state.proposals.values()];
      return {
        persona_id: personaId,
        proposals,
        open: proposals.filter((p) => p.state === 'pending' || p.state === 'under-review').length,
        refusals: state.refusals.map((r) => ({ at: r.at, reason: r.reason, limit: r.limit, observed: r.observed, kind: r.kind, proposer: r.proposer })),
        attention: reviewAttention(state, { nowMs }),
      };
    } finally {
      await queue.close();
    }
  } catch (error) {
    return { persona_id: personaId, proposals: [], open: 0, refusals: [], error: errorLine(error), errorMessage: isKernelError(error) ? error.message : errorLine(error) };
  }
}

export async function fleetQueues(stateDir: string, nowMs = Date.now()): Promise<PersonaQueue[]> {
  const out: PersonaQueue[] = [];
  for (const id of personasWithQueues(stateDir)) out.push(await personaQueue(stateDir, id, nowMs));
  return out;
}

/** Finds a proposal by id in its persona's queue (the id names the persona). */
export async function findProposal(stateDir: string, personaId: string, id: string): Promise<Proposal | undefined> {
  const q = await personaQueue(stateDir, personaId);
  if (q.error) throw new Error(q.error);
  return q.proposals.find((p) => p.id === id);
}
