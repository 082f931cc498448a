/**
 * Accept and reject from the console: exactly the review queue's own decision, under its
 * lock, as `runtimectl proposals accept|reject` makes it (features/review/cli.ts). The server
 * makes a Decider only when it was started with an operator credential; without one there is
 * nothing that can decide.
 */
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { openPersonaReviewQueue, parseProposalId, type Proposal } from '../../kernel/review/index.ts';

export type Verdict = 'accept' | 'reject';

export interface Decider {
  /** the operator's name, as decisions record it */
  readonly operator: string;
  decide(stateDir: string, id: string, verdict: Verdict, reason: string | undefined, nowMs: number): Promise<Proposal>;
}

/** The persona a proposal id names (P-<persona>-<n>), or a not-found error. */
export function personaOfProposal(id: string): string {
  const parsed = parseProposalId(id);
  if (!parsed) throw kernelError('RTC_ERR_REVIEW_NOT_FOUND', `no proposal ${id}: ids look like P-<persona>-<n>`, { details: { id } });
  return parsed.persona;
}

/** Interim until the operator credential lands (state branch): the name only. */
export function operatorDecider(env: Readonly<Record<string, string | undefined>>, _stateDir: string): Decider {
  const operator = env.RUNTIMECTL_OPERATOR_NAME ?? 'operator';
  return {
    operator,
    async decide(stateDir, id, verdict, reason, nowMs) {
      const personaDir = path.join(stateDir, personaOfProposal(id));
      const queue = await openPersonaReviewQueue(personaDir, {});
      try {
        const decision = { by: operator, now: nowMs, ...(reason ? { reason } : {}) };
        const result = verdict === 'accept' ? queue.accept(id, decision) : queue.reject(id, { ...decision, reason: reason! });
        return result.proposal;
      } finally {
        await queue.close();
      }
    },
  };
}
