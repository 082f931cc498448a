/**
 * Accept and reject from the console: exactly the CLI's decision (features/review/cli.ts),
 * the same review queue call under its lock, signed with the operator credential and checked
 * by the one ratification check (features/review-queue/ratify.ts) before it is recorded; the loop
 * checks it again when it applies. The server makes a Decider only when started with
 * `--operator`, which loads this operator's key from their config folder (never the state
 * directory); without one there is nothing that can decide.
 */
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { openPersonaReviewQueue, parseProposalId, type Proposal } from '../review-queue/index.ts';
import { loadOperatorKey } from '../review-queue/operators.ts';
import { ratifyContextFor } from '../review/ratify-context.ts';
import { persistenceProvider } from '../persistence/provider.ts';

export type Verdict = 'accept' | 'reject';

export interface Decider {
  /** the operator's name, as decisions record it (the credential's) */
  readonly operator: string;
  readonly fingerprint: string;
  decide(stateDir: string, id: string, verdict: Verdict, reason: string | undefined, nowMs: number): Promise<Proposal>;
}

/** The persona a proposal id names (P-<persona>-<n>), or a not-found error. */
export function personaOfProposal(id: string): string {
  const parsed = parseProposalId(id);
  if (!parsed) throw kernelError('RTC_ERR_REVIEW_NOT_FOUND', `no proposal ${id}: ids look like P-<persona>-<n>`, { details: { id } });
  return parsed.persona;
}

/** The Decider of the operator whose credential `env` names (refused, one line, when there is none or it is unsafe). */
export function operatorDecider(env: Readonly<Record<string, string | undefined>>, stateDir: string): Decider {
  const key = loadOperatorKey(env, stateDir);
  return {
    operator: key.name,
    fingerprint: key.fingerprint,
    async decide(root, id, verdict, reason, nowMs) {
      const personaDir = path.join(root, personaOfProposal(id));
      const ratify = await ratifyContextFor(personaDir, env);
      const queue = await openPersonaReviewQueue(personaDir, persistenceProvider, {});
      try {
        const decision = { by: key.name, now: nowMs, operator: key, ratify, ...(reason ? { reason } : {}) };
        const result = verdict === 'accept' ? queue.accept(id, decision) : queue.reject(id, { ...decision, reason: reason! });
        return result.proposal;
      } finally {
        await queue.close();
      }
    },
  };
}
