/**
 * The console's live stream: one hub per server that follows, through the same follower as
 * `logs --follow` (features/logs/follow.ts), only the personas someone is watching, and
 * hands each new event to every subscriber (an SSE connection). One poll loop for all
 * connections, so a hundred open pages cost one read per change, not a hundred.
 */
import { errorLine } from '../../kernel/errors.ts';
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { headSeq, PersonaFollower } from '../logs/follow.ts';
import { eventLine } from '../logs/format.ts';
import { openHistoryReader, personasWithHistory } from '../history/read-path.ts';
import { CYCLE_EVENT } from '../history/usage.ts';
import { cycleView, type CycleView } from './persona.ts';
import type { ConsoleScrub } from './scrub.ts';

export interface LiveMessage {
  event: 'event' | 'persona-error';
  data: { persona: string; seq?: number; type?: string; at?: string; line?: string; cycle?: CycleView & { health: string }; error?: string };
}

type Listener = (m: LiveMessage) => void;

/** A cycle's badge from its own payload (the overview row updates without a re-read). */
function cycleHealth(e: EventEnvelope): string {
  const p = e.payload as Record<string, any>;
  if (p.outcome === 'failed' || p.outcome === 'interrupted') return 'failing';
  if (p.outcome === 'executed') return 'working';
  if (p.outcome === 'deferred') {
    const b = p.budget ?? {};
    const reason = String(p.defer_reason ?? '');
    if (b.read_only || b.session_cap_reached || !/^(not launched:|reviewer handoff|executor \S+ is disabled|the kernel is stopping)/.test(reason)) return 'deferred-by-budget';
  }
  return 'healthy-quiet';
}

export class LiveHub {
  readonly #stateDir: string;
  readonly #scrub: ConsoleScrub;
  readonly #intervalMs: number;
  /** persona id, or '*' for every persona */
  readonly #listeners = new Map<string, Set<Listener>>();
  readonly #followers = new Map<string, PersonaFollower>();
  readonly #errors = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;
  #polling = false;

  constructor(stateDir: string, scrub: ConsoleScrub, intervalMs = 250) {
    this.#stateDir = stateDir;
    this.#scrub = scrub;
    this.#intervalMs = intervalMs;
  }

  /** Subscribes to one persona's events (or '*': all); returns the unsubscribe. */
  subscribe(persona: string, listener: Listener): () => void {
    let set = this.#listeners.get(persona);
    if (!set) this.#listeners.set(persona, (set = new Set()));
    set.add(listener);
    this.#timer ??= setInterval(() => void this.poll(), this.#intervalMs);
    return () => {
      set!.delete(listener);
      if (set!.size === 0) this.#listeners.delete(persona);
      if (this.#listeners.size === 0 && this.#timer) {
        clearInterval(this.#timer);
        this.#timer = undefined;
        this.#followers.clear();
      }
    };
  }

  /**
   * Brings one new subscriber up from `after` (the head its page was rendered at) to where the
   * hub's follower of that persona stands, so an event appended between the page's render and
   * its stream's start is not lost; a persona nobody followed yet is followed from `after`.
   */
  async catchUp(persona: string, after: number, listener: Listener): Promise<void> {
    const f = this.#followers.get(persona);
    if (!f) {
      this.#followers.set(persona, new PersonaFollower(this.#stateDir, persona, after));
      return;
    }
    if (after >= f.afterSeq) return;
    const upTo = f.afterSeq;
    const reader = await openHistoryReader(this.#stateDir, persona);
    try {
      for (const e of reader.eventsAfter(after, upTo - after)) if (e.seq <= upTo) listener(this.#message(persona, e));
    } finally {
      await reader.close();
    }
  }

  /**
   * Makes sure every persona of `persona` ('*': all) is followed from its head now, so that a
   * stream that says it is ready misses nothing appended after that (a persona nobody followed
   * yet would otherwise be picked up at the next poll, at whatever its head is by then).
   */
  async prime(persona: string): Promise<void> {
    const ids = persona === '*' ? personasWithHistory(this.#stateDir) : [persona];
    for (const id of ids) {
      if (this.#followers.has(id)) continue;
      try {
        this.#followers.set(id, new PersonaFollower(this.#stateDir, id, await headSeq(this.#stateDir, id)));
      } catch {
        // its history cannot be read: the poll reports that to the stream
      }
    }
  }

  get subscribers(): number {
    let n = 0;
    for (const s of this.#listeners.values()) n += s.size;
    return n;
  }

  #send(persona: string, m: LiveMessage): void {
    for (const key of [persona, '*']) for (const l of this.#listeners.get(key) ?? []) {
      try {
        l(m);
      } catch {
        // a listener whose connection broke is removed by its own abort handler
      }
    }
  }

  #message(persona: string, e: EventEnvelope): LiveMessage {
    const data: LiveMessage['data'] = { persona, seq: e.seq, type: e.type, at: e.at, line: this.#scrub.text(eventLine(persona, e)) };
    if (e.type === CYCLE_EVENT) data.cycle = { ...this.#scrub.deep(cycleView(e)), health: cycleHealth(e) };
    return { event: 'event', data };
  }

  /** One round: every watched persona's new events to its listeners. */
  async poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      const ids = this.#listeners.has('*') ? personasWithHistory(this.#stateDir) : [...this.#listeners.keys()];
      for (const id of ids) {
        let f = this.#followers.get(id);
        try {
          if (!f) {
            // Watching starts at the persona's head: the page already shows what came before.
            f = new PersonaFollower(this.#stateDir, id, await headSeq(this.#stateDir, id));
            this.#followers.set(id, f);
          }
          for (const e of await f.poll(1000)) this.#send(id, this.#message(id, e));
          this.#errors.delete(id);
        } catch (error) {
          const line = this.#scrub.text(errorLine(error));
          if (this.#errors.get(id) !== line) this.#send(id, { event: 'persona-error', data: { persona: id, error: line } });
          this.#errors.set(id, line);
        }
      }
    } finally {
      this.#polling = false;
    }
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#listeners.clear();
    this.#followers.clear();
  }
}
