/**
 * A persona's review queue: the one entrypoint through which ratified state changes.
 *
 * The loop and plugins submit proposals; operators decide them (`runtimectl proposals`);
 * the loop applies accepted ones at the start of the next cycle. Every change is a locked
 * session that appends records to the proposal log (`review/proposals.jsonl`, or the
 * persona's persistence backend: storage.ts) and returns them as events for the persona's
 * event log; nothing in the log is ever rewritten. Reads take no lock: they
 * replay the log as it is (a record being written by another process is not yet there).
 *
 * Times are logical epoch milliseconds supplied by the caller (`now`); the queue never
 * reads a clock, so the same inputs give the same log, byte for byte.
 */
import type { PersistenceBackend, PersistenceProvider } from '../../kernel/contracts/persistence.ts';
import { DEFAULT_BACKEND_NAME } from '../persistence/state/persistence-config-schema.ts';
import { applyAcceptedIn, type ApplyOutcome } from './apply.ts';
import type { RatifyContext } from './ratify.ts';
import { decideIn, expireDueIn, findProposal, submitIn, toEvents, type Decision, type ReviewEvent, type SubmitOutcome } from './operations.ts';
import { reviewPaths, type ReviewPaths } from './paths.ts';
import { DEFAULT_REVIEW_POLICY, reviewPolicySchema, type ReviewPolicy } from '../../kernel/personas/review-policy.ts';
import { describeZodError } from '../../kernel/manifest/load.ts';
import { kernelError } from '../../kernel/errors.ts';
import { OPEN_STATES, type ProposalInput, type ProposalState } from './records.ts';
import { forgetReplayCache, withReviewSession, type ReviewSession } from './session.ts';
import { withExclusiveLock } from '../persistence/state/exclusive-lock.ts';
import { recordsInState } from './mirror.ts';
import { readProposalLog } from './log-file.ts';
import { sealProposalLog, type ReviewSealPolicy } from './log-history.ts';
import { displayName, reviewLock } from './paths.ts';
import type { SegmentIndexEntry } from '../history-segments/index-entry.ts';
import { configuredBackend, reviewStorage, type ReviewBackend, type ReviewStorage } from './storage.ts';
import { unappliedAccepted, type Proposal, type QueueState } from './state.ts';

export interface ReviewQueueOptions {
  /** The persona's policy (from its profile); DEFAULT_REVIEW_POLICY when absent. */
  policy?: ReviewPolicy;
  /** How long a change waits for another process's change to finish (default 5 s; it is held for milliseconds). */
  lockWaitMs?: number;
  /**
   * The persona's opened persistence backend: records and long-term.md go through it. Without
   * one the queue uses the jsonl-fs files, and refuses a persona configured for another backend.
   */
  backend?: ReviewBackend;
  /**
   * The ratification check applyAccepted runs before anything accepted takes effect (the
   * loop always passes it: ratify.ts). Without it the queue is the bare state machine.
   */
  ratify?: RatifyContext;
  /**
   * The writer of the persona's event log passes this (the loop): every change then also
   * returns, first, the records other processes appended since `seq` (an operator's decision,
   * a refused decision, a submission from the CLI), rebuilt as events (mirror.ts), and moves
   * `seq` to the last record. Start it at the log's last seq (or 0 for a persona with none).
   */
  mirror?: { seq: number };
}

/** Every change returns the records it appended as events for the persona's event log. */
export type WithEvents<T> = T & { events: ReviewEvent[] };

export interface At {
  now: number;
}

export class ReviewQueue {
  readonly paths: ReviewPaths;
  readonly policy: ReviewPolicy;
  readonly #lockWaitMs: number | undefined;
  readonly #storage: ReviewStorage;
  readonly #backend: ReviewBackend | undefined;
  readonly #ratify: RatifyContext | undefined;
  readonly #mirror: { seq: number } | undefined;
  /** A backend this queue opened itself (openPersonaReviewQueue), closed by close(). */
  #owned: PersistenceBackend | undefined;

  constructor(personaDir: string, options: ReviewQueueOptions = {}) {
    this.paths = reviewPaths(personaDir);
    this.policy = options.policy === undefined ? DEFAULT_REVIEW_POLICY : parseReviewPolicy(options.policy);
    this.#lockWaitMs = options.lockWaitMs;
    this.#storage = reviewStorage(this.paths, options.backend);
    this.#backend = options.backend;
    this.#ratify = options.ratify;
    this.#mirror = options.mirror;
  }

  /**
   * The persona's queue over the backend its persistence.yaml names. jsonl-fs (the default)
   * keeps the queue's own files, so nothing is opened; any other backend is opened here
   * (read-only when `readonly`) and released by close().
   */
  static async open(personaDir: string, persistence: PersistenceProvider, options: Omit<ReviewQueueOptions, 'backend'> & { readonly?: boolean } = {}): Promise<ReviewQueue> {
    const { readonly, ...rest } = options;
    const paths = reviewPaths(personaDir);
    const name = configuredBackend(paths.personaDir);
    if (name === DEFAULT_BACKEND_NAME) return new ReviewQueue(personaDir, rest);
    const backend = await persistence.open(paths.personaDir, name, { readonly: readonly ?? false, personaId: paths.persona });
    try {
      const queue = new ReviewQueue(personaDir, { ...rest, backend });
      queue.#owned = backend;
      return queue;
    } catch (error) {
      await backend.close();
      throw error;
    }
  }

  /** Releases a backend the queue opened itself; a no-op otherwise. */
  async close(): Promise<void> {
    const owned = this.#owned;
    this.#owned = undefined;
    await owned?.close();
  }

  /** Where the records are: `review/proposals.jsonl`, or the backend's store (e.g. `persistence.db#proposals`). */
  get location(): string {
    return this.#storage.location;
  }

  /** The persistence backend handed over (or opened by open()); undefined when the queue uses the jsonl-fs files alone. */
  get backend(): ReviewBackend | undefined {
    return this.#backend;
  }

  /** False when nothing was ever proposed to this persona. */
  hasRecords(): boolean {
    return this.#storage.hasRecords();
  }

  get persona(): string {
    return this.paths.persona;
  }

  /** Queues a proposal, or refuses it for backpressure (recording the refusal and an operator alert). */
  submit(input: ProposalInput, at: At): WithEvents<SubmitOutcome> {
    return this.#change(at.now, (session) => clone(submitIn(session, input, this.policy)));
  }

  startReview(id: string, decision: Decision & At): WithEvents<{ proposal: Proposal }> {
    return this.#decide(id, 'under-review', decision);
  }

  accept(id: string, decision: Decision & At): WithEvents<{ proposal: Proposal }> {
    return this.#decide(id, 'accepted', decision);
  }

  reject(id: string, decision: Decision & { reason: string } & At): WithEvents<{ proposal: Proposal }> {
    return this.#decide(id, 'rejected', decision);
  }

  /** Records `expired` for every open proposal whose expiry is at or before `now`. */
  expireDue(now: number): WithEvents<{ expired: Proposal[] }> {
    if (!this.#storage.hasRecords()) return { expired: [], events: [] };
    return this.#change(now, (session) => ({ expired: clone(expireDueIn(session)) }));
  }

  /** Applies accepted proposals (see apply.ts). A persona that never proposed anything costs one stat. */
  applyAccepted(at: At): WithEvents<ApplyOutcome> {
    if (!this.#storage.hasRecords()) return { applied: [], expired: [], held: [], events: [] };
    const ratify = this.#ratify;
    return this.#change(at.now, (session) => clone(applyAcceptedIn(session, ratify)));
  }

  /** The queue as the log says it is now (no lock, nothing written). */
  read(): QueueState {
    return this.#storage.read();
  }

  /** Proposals in submission order, optionally only those in some states. */
  list(filter: { states?: readonly ProposalState[] } = {}): Proposal[] {
    const all = [...this.read().proposals.values()];
    return filter.states === undefined ? all : all.filter((p) => filter.states!.includes(p.state));
  }

  /** One proposal; RTC_ERR_REVIEW_NOT_FOUND names the persona's queue when there is none. */
  get(id: string): Proposal {
    return findProposal(this.read(), id);
  }

  /**
   * Seals the proposal log into a segment when it is due by `policy` (history.yaml's segment
   * size and rotation; log-history.ts), under the queue's lock. The file storage only: a
   * backend that keeps the records elsewhere (sqlite) keeps them as rows.
   */
  sealLog(policy: ReviewSealPolicy, now: number): SegmentIndexEntry | undefined {
    if (this.#storage.kind !== 'file' || !this.#storage.hasRecords()) return undefined;
    return withExclusiveLock(
      this.paths.lock,
      reviewLock(this.paths, this.#lockWaitMs),
      () => {
        const read = readProposalLog(this.paths.log, this.paths.persona, displayName(this.paths));
        if (read.torn) return undefined;
        const entry = sealProposalLog(this.paths.log, this.paths.persona, read.state, policy, now);
        if (entry) forgetReplayCache(this.#storage.location);
        return entry;
      },
    );
  }

  /** Accepted proposals not yet applied, in acceptance order: what the next cycle boundary will apply. */
  pendingEffects(): Proposal[] {
    return unappliedAccepted(this.read());
  }

  #decide(id: string, to: 'under-review' | 'accepted' | 'rejected', decision: Decision & At): WithEvents<{ proposal: Proposal }> {
    const { now, ...rest } = decision;
    // No log, no proposals: say so without creating the persona's review folder.
    if (!this.#storage.hasRecords()) findProposal({ persona: this.persona, proposals: new Map() }, id);
    return this.#change(now, (session) => ({ proposal: clone(decideIn(session, id, to, rest)) }));
  }

  #change<T extends object>(now: number, fn: (session: ReviewSession) => T): WithEvents<T> {
    let appended: ReviewSession['appended'] = [];
    let foreign: ReviewEvent[] = [];
    const mirror = this.#mirror;
    try {
      const result = withReviewSession(
        this.paths,
        now,
        (session) => {
          appended = session.appended;
          if (mirror) {
            // What others appended since this writer's last change (a torn-tail repair just made is its own).
            const upTo = session.state.lastSeq - session.appended.length;
            if (upTo > mirror.seq) foreign = recordsInState(session.state, mirror.seq, upTo);
          }
          try {
            return fn(session);
          } finally {
            if (mirror) mirror.seq = session.state.lastSeq;
          }
        },
        this.#lockWaitMs,
        undefined,
        this.#storage,
      );
      return { ...result, events: [...foreign, ...toEvents(appended)] };
    } catch (error) {
      // A failed change may still have written records (an expiry found on the way):
      // they travel with the error so a caller can log them too.
      const events = [...foreign, ...toEvents(appended)];
      if (events.length > 0 && typeof error === 'object' && error !== null) eventsOfFailedChange.set(error, events);
      throw error;
    }
  }
}

const eventsOfFailedChange = new WeakMap<object, ReviewEvent[]>();

/** Records a change wrote before it failed (e.g. expiries recorded on the way to a refused accept). */
/** Validates a policy given in code (a profile's is validated when the profile loads). */
export function parseReviewPolicy(value: unknown, where = 'review policy'): ReviewPolicy {
  const result = reviewPolicySchema.safeParse(value);
  if (!result.success) {
    const { field, reason } = describeZodError(result.error);
    throw kernelError('RTC_ERR_REVIEW_INVALID', `${where}: ${field}: ${reason}`, { details: { field, reason } });
  }
  return result.data;
}

export function reviewEventsOf(error: unknown): ReviewEvent[] {
  return (typeof error === 'object' && error !== null ? eventsOfFailedChange.get(error) : undefined) ?? [];
}

export function openReviewQueue(personaDir: string, options: ReviewQueueOptions = {}): ReviewQueue {
  return new ReviewQueue(personaDir, options);
}

/** The persona's queue over its configured persistence backend (opened through `persistence`); call close() when done. */
export function openPersonaReviewQueue(personaDir: string, persistence: PersistenceProvider, options: Omit<ReviewQueueOptions, 'backend'> & { readonly?: boolean } = {}): Promise<ReviewQueue> {
  return ReviewQueue.open(personaDir, persistence, options);
}

/** The loop's call at the start of each cycle (with the persona's opened backend). */
export function applyAccepted(personaDir: string, options: At & Pick<ReviewQueueOptions, 'lockWaitMs' | 'backend'>): WithEvents<ApplyOutcome> {
  const { now, ...rest } = options;
  return new ReviewQueue(personaDir, rest).applyAccepted({ now });
}

/** Open and past its expiry, but not yet recorded as expired (the next change will record it). */
export function isOverdue(proposal: Proposal, now: number): boolean {
  return OPEN_STATES.has(proposal.state) && proposal.expires_at <= now;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}
