/**
 * What the ratification check (features/review-queue/ratify.ts) needs for one persona: the operator
 * trust list of this environment, and the digests its evidence has now (files, and events
 * through the persona's backend). One place for every front end that decides: the CLI
 * (`proposals accept|reject`) and the console (features/console/decide.ts).
 */
import path from 'node:path';
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { evidenceDigest } from '../review-queue/evidence.ts';
import { loadOperatorTrust } from '../review-queue/operators.ts';
import type { RatifyContext } from '../review-queue/ratify.ts';
import { openBackend } from '../persistence/open.ts';

export async function ratifyContextFor(personaDir: string, env: Readonly<Record<string, string | undefined>>): Promise<RatifyContext> {
  const trust = loadOperatorTrust(env);
  const { events } = await personaEvents(personaDir);
  return { trust, evidenceDigest: (ref) => evidenceDigest(ref, { personaDir, ...(events ? { events: () => events! } : {}) }) };
}

/** The persona's events, read now through its backend (checks run synchronously under the queue's lock); undefined when they cannot be read. */
export async function personaEvents(personaDir: string): Promise<{ events: EventEnvelope[] | undefined }> {
  const backend = await openBackend(personaDir, undefined, { readonly: true, personaId: path.basename(personaDir) });
  try {
    return { events: [...backend.events.read()] };
  } catch {
    return { events: undefined };
  } finally {
    await backend.close();
  }
}
