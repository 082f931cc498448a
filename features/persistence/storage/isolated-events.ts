/**
 * A persona's event store when its backend is an isolated plugin: the kernel keeps the chain.
 *
 * Appends are encoded, hashed and group-committed by the kernel's own EventLog
 * (kernel/events/event-log.ts). Its sink hands each batch to the plugin *by reference*:
 * the plugin's `appendEvents` gets a batch id and names where it goes through an events
 * binding, which writes the kernel's bytes (or rows) once, in order, durably. One plugin
 * call and one broker op per batch, so group commit survives the isolate boundary. A batch
 * is acknowledged only when the binding recorded it as stored: a plugin that answers
 * without storing, or stores out of order, fails the append (RTC_ERR_PERSISTENCE_BACKEND).
 *
 * Reads bind a handle to the placement (the plugin's `readEvents`), then the kernel reads
 * and verifies the events there itself (event-placement.ts): what it hands on was never in
 * the plugin's hands.
 *
 * The log's history (features/history-segments: sealed segments, index, rollups, checkpoint) is the
 * placement's and the kernel's (placement-history.ts): the log seals through its sink, which
 * stores the seal at the placement without a plugin call. A placement with no sealed side
 * (postgres, see pg-history.ts) is one open segment that is never sealed.
 */
import { appendStartupEvents, EventLog, type AppendResult, type BatchSink, type EventLogStartup, type OpenSegment, type SealOptions, type SealOutcome, type SealRequest } from '../../../kernel/events/event-log.ts';
import { Batch } from '../../../kernel/events/batch.ts';
import { canonicalJson } from '../../../kernel/events/canonical.ts';
import type { EventEnvelope } from '../../../kernel/events/envelope.ts';
import { eventLine } from './rows.ts';
import { kernelError } from '../../../kernel/errors.ts';
import type { EventOpenOptions, EventStore } from '../../../kernel/contracts/persistence.ts';
import type { HistoryStorage } from '../../../kernel/contracts/history-storage.ts';
import { importSegmented } from '../history-import.ts';
import { openSegmentOf } from '../../../kernel/events/open-segment.ts';
import { eventsAfter } from '../../history-segments/reader.ts';
import { verifyHistory, type HistoryVerifyOptions, type HistoryVerifyReport } from '../../history-segments/verify.ts';
import { placementIsEmpty, placementLocation, readPlacement } from './event-placement.ts';
import { kernelEventsDb, markMigrationLogged } from './sqlite-events-db.ts';
import { placementHistory, type PlacementHistory } from './placement-history.ts';
import type { EventPlacement, StorageSession } from './storage-session.ts';

/** How the store reaches its plugin: calls with the session token already bound (and errors unwrapped). */
export interface BackendCalls {
  readonly pluginId: string;
  sync(name: string, ...args: unknown[]): unknown;
  async(name: string, ...args: unknown[]): Promise<unknown>;
}

function contractBroken(calls: BackendCalls, what: string): never {
  throw kernelError('RTC_ERR_PERSISTENCE_BACKEND', `plugin ${calls.pluginId} ${what}`, { details: { plugin: calls.pluginId } });
}

/** Hands one batch over and checks that the binding stored it. */
async function storeBatch(session: StorageSession, calls: BackendCalls, exportName: 'appendEvents' | 'importEvents', batch: Batch, firstSeq: number): Promise<void> {
  const id = session.handOver(batch, firstSeq);
  try {
    try {
      await calls.async(exportName, { batch: id, first_seq: firstSeq, count: batch.size });
    } catch (error) {
      // The plugin failed after the binding stored the batch: the events are durable, so acknowledged.
      if (!session.isStored(id)) throw error;
    }
    if (!session.isStored(id)) contractBroken(calls, `answered for events ${firstSeq}..${firstSeq + batch.size - 1} of persona ${session.personaId} without storing them through an events binding`);
  } finally {
    session.release(id);
  }
}

class PluginSink implements BatchSink {
  constructor(
    readonly session: StorageSession,
    readonly calls: BackendCalls,
    readonly placement: PlacementHistory,
  ) {}

  write(batch: Batch): Promise<void> {
    return storeBatch(this.session, this.calls, 'appendEvents', batch, batch.acks[0]!.result.seq);
  }

  openBytes(): Buffer {
    return this.placement.openBytes();
  }

  seal(request: SealRequest): Promise<void> {
    return this.placement.seal(request);
  }

  async close(): Promise<void> {
    // The placement's own resources (the log file, a connection) belong to the session.
  }
}

export class IsolatedEventStore implements EventStore {
  readonly location: string;
  readonly #session: StorageSession;
  readonly #calls: BackendCalls;
  readonly #now: () => Date;
  #opening: Promise<EventLog> | undefined;
  #log: EventLog | undefined;
  #placement: EventPlacement | undefined;
  #history: PlacementHistory | undefined;

  constructor(session: StorageSession, calls: BackendCalls, location: string, now: () => Date) {
    this.#session = session;
    this.#calls = calls;
    this.location = location;
    this.#now = now;
  }

  #openLog(options: EventOpenOptions = {}): Promise<EventLog> {
    this.#opening ??= (async () => {
      if (this.#session.readonly) throw kernelError('RTC_ERR_PERSISTENCE_READONLY', 'cannot append events: the persistence backend was opened read-only');
      this.#session.openOptions = options;
      this.#calls.sync('openEvents');
      const opened = this.#session.opened;
      if (opened === undefined) contractBroken(this.#calls, `did not open the events of persona ${this.#session.personaId} through an events binding`);
      this.#placement = opened.placement;
      const placement = this.#placementHistory();
      const log = new EventLog(placementLocation(opened.placement), new PluginSink(this.#session, this.#calls, placement), opened.lastSeq, opened.lastHash, this.#now, {
        keepRows: opened.placement.kind !== 'file',
        ...(opened.segment ? { segment: opened.segment } : {}),
        ...(opened.sealed ? { history: { ...opened.sealed, ...(options.rollup ? { rollup: options.rollup } : {}) } } : {}),
      });
      await appendStartupEvents(log, opened, { reboot: options.reboot !== false });
      // A crashed writer's lease was taken over: the chain says so, right after the reboot that continues it.
      if (opened.tookOverFrom) await log.append('writer_takeover', { previous: { ...opened.tookOverFrom }, last_seq: opened.lastSeq });
      // The kernel's tables were moved out of a previous version's plugin database: the chain says so, once.
      if (opened.migrated) {
        await log.append('storage_migrated', { ...opened.migrated });
        markMigrationLogged(kernelEventsDb(this.#session));
      }
      this.#log = log;
      return log;
    })();
    return this.#opening;
  }

  async open(options: EventOpenOptions = {}): Promise<EventLogStartup> {
    return (await this.#openLog(options)).startup;
  }

  append(type: string, payload: Record<string, unknown>): Promise<AppendResult> {
    // Straight to the open log (no extra turn): appends made together stay in call order and one batch.
    return this.#log ? this.#log.append(type, payload) : this.#openLog().then((log) => log.append(type, payload));
  }

  async flush(): Promise<void> {
    if (this.#opening) await (await this.#opening).flush();
  }

  /** Where the plugin says this persona's events are (it binds a read handle; the kernel reads). */
  placement(): EventPlacement {
    if (this.#placement) return this.#placement;
    const handle = this.#session.newRead();
    this.#calls.sync('readEvents', { handle });
    const placement = this.#session.takeRead(handle);
    if (placement === undefined) contractBroken(this.#calls, `did not name where the events of persona ${this.#session.personaId} are (readEvents bound no read handle)`);
    // The session pins one placement: later reads name the same one.
    this.#placement = placement;
    return placement;
  }

  #placementHistory(): PlacementHistory {
    this.#history ??= placementHistory(this.#session, this.placement());
    return this.#history;
  }

  get history(): HistoryStorage {
    return this.#placementHistory().history;
  }

  /** Seals the open segment; a placement with no sealed side (postgres) is never sealed (undefined). */
  async seal(options?: SealOptions): Promise<SealOutcome | undefined> {
    const log = this.#log ?? (await this.#openLog());
    if (!log.history) return undefined;
    return log.seal(options);
  }

  openSegment(): OpenSegment {
    if (this.#log) return this.#log.openSegment;
    let bytes = 0;
    const events: EventEnvelope[] = [];
    for (const event of this.readOpen()) {
      events.push(event);
      bytes += Buffer.byteLength(eventLine(event));
    }
    return openSegmentOf(events, bytes);
  }

  readOpen(): Iterable<EventEnvelope> {
    return readPlacement(this.placement());
  }

  readAfter(afterSeq: number): Iterable<EventEnvelope> {
    return eventsAfter(this, afterSeq);
  }

  read(): Iterable<EventEnvelope> {
    return eventsAfter(this, 0);
  }

  verify(options?: HistoryVerifyOptions): HistoryVerifyReport {
    const placement = this.#placementHistory();
    return verifyHistory({ history: placement.history, location: this.location, checkOpen: (start) => placement.checkOpen(start) }, options);
  }

  isEmpty(): boolean {
    return placementIsEmpty(this.placement()) && this.history.list().segments.length === 0;
  }

  async importEvents(events: Iterable<EventEnvelope>, options: Pick<EventOpenOptions, 'rollup'> = {}): Promise<number> {
    if (this.#session.readonly) throw kernelError('RTC_ERR_PERSISTENCE_READONLY', 'cannot import events: the persistence backend was opened read-only');
    if (this.#opening) throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', `${this.location}: events can only be imported into a store that is not open for appends`);
    if (!this.isEmpty()) throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', `${this.location} already holds events; an import goes only into an empty store`, { details: { file: this.location } });
    const placement = this.#placementHistory();
    // Written in batches through the plugin, each synced; a segment header seals what came before it, as in the original.
    return importSegmented(events, {
      history: placement.history,
      file: this.location,
      appendEvents: (list) => this.#importBatch(list),
      readOpenBytes: () => placement.openBytes(),
      replaceOpen: (header) => placement.replaceOpen(header),
      ...(options.rollup ? { rollup: options.rollup } : {}),
    });
  }

  async #importBatch(list: readonly EventEnvelope[]): Promise<void> {
    if (list.length === 0) return;
    const batch = new Batch();
    for (const event of list) {
      const payloadJson = canonicalJson(event.payload);
      batch.addLine(eventLine(event));
      batch.rows.push({ seq: event.seq, type: event.type, payloadJson, prev: event.prev, hash: event.hash, at: event.at });
      batch.acks.push({ result: { seq: event.seq, hash: event.hash }, resolve: () => undefined, reject: () => undefined });
    }
    await storeBatch(this.#session, this.#calls, 'importEvents', batch, list[0]!.seq);
  }

  async close(): Promise<void> {
    if (this.#opening) {
      const log = await this.#opening.catch(() => undefined);
      await log?.close();
    }
  }
}
