/**
 * An accepted verdict becomes a skill-draft proposal in a persona's review queue, resting
 * on the evidence package (its manifest.json and that file's digest). The gate only
 * proposes: enabling the skill is an operator's decision in the queue
 * (`runtimectl proposals accept`). The queue's backpressure applies as to any proposal.
 */
import { persistenceProvider } from '../persistence/provider.ts';
import { isKernelError } from '../../kernel/errors.ts';
import { openPersonaReviewQueue, type ReviewPolicy } from '../review-queue/index.ts';

export type ProposalOutcome =
  | { status: 'not-proposed'; reason: string }
  | { status: 'queued'; id: string; queue: string }
  | { status: 'refused'; queue: string; reason: string };

export interface ProposalRequest {
  /** `<state>/<persona>`: the persona whose queue gets the proposal */
  personaDir: string;
  policy?: ReviewPolicy;
  skill: string;
  manifestFile: string;
  manifestDigest: string;
  profile: string;
  now: number;
}

/** Queues the proposal in the persona's queue, through the persistence backend the persona uses. */
export async function proposeSkillDraft(request: ProposalRequest): Promise<ProposalOutcome> {
  const evidence = { ref: request.manifestFile, digest: request.manifestDigest };
  try {
    const queue = await openPersonaReviewQueue(request.personaDir, persistenceProvider, request.policy === undefined ? {} : { policy: request.policy });
    try {
      const outcome = queue.submit({ kind: 'skill-draft', proposer: `gate:${request.profile}`, evidence: [evidence], skill: request.skill, package: evidence }, { now: request.now });
      if (outcome.status === 'queued') return { status: 'queued', id: outcome.proposal.id, queue: queue.location };
      return { status: 'refused', queue: queue.location, reason: outcome.refusal.message };
    } finally {
      await queue.close();
    }
  } catch (error) {
    // The verdict and its evidence stand whatever the queue says; the refusal is reported.
    if (!isKernelError(error)) throw error;
    return { status: 'refused', queue: request.personaDir, reason: error.toLine() };
  }
}
