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
 */
import { appendStartupEvents, EventLog, type AppendResult, type BatchSink, type EventLogStartup } from '../events/event-log.ts';
import { Batch } from '../events/batch.ts';
import { canonicalJson } from '../events/canonical.ts';
import type { EventEnvelope } from '../events/envelope.ts';
import { eventLine } from '../events/rows.ts';
import { kernelError } from '../errors.ts';
import type { EventChainReport, EventStore } from '../contracts/persistence.ts';
import { placementIsEmpty, placementLocation, readPlacement, verifyPlacement } from './event-placement.ts';
import type { EventPlacement, StorageSession } from './storage-session.ts';

/** How the store reaches its plugin: calls with the session token already bound (and errors unwrapped). */
export interface BackendCalls {
  readonly pluginId: string;
  sync(name: string, ...args: unknown[]): unknown;
  async(name: string, ...args: unknown[]): Promise<unknown>;
}

/** Events per import batch (a long log never sits whole in memory). */
const IMPORT_BATCH = 4096;

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
  ) {}

  write(batch: Batch): Promise<void> {
    return storeBatch(this.session, this.calls, 'appendEvents', batch, batch.acks[0]!.result.seq);
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

  constructor(session: StorageSession, calls: BackendCalls, location: string, now: () => Date) {
    this.#session = session;
    this.#calls = calls;
    this.location = location;
    this.#now = now;
  }

  #openLog(): Promise<EventLog> {
    this.#opening ??= (async () => {
      if (this.#session.readonly) throw kernelError('RTC_ERR_PERSISTENCE_READONLY', 'cannot append events: the persistence backend was opened read-only');
      this.#calls.sync('openEvents');
      const opened = this.#session.opened;
      if (opened === undefined) contractBroken(this.#calls, `did not open the events of persona ${this.#session.personaId} through an events binding`);
      const log = new EventLog(placementLocation(opened.placement), new PluginSink(this.#session, this.#calls), opened.lastSeq, opened.lastHash, this.#now, {
        keepRows: opened.placement.kind !== 'file',
      });
      await appendStartupEvents(log, opened);
      // A crashed writer's lease was taken over: the chain says so, right after the reboot that continues it.
      if (opened.tookOverFrom) await log.append('writer_takeover', { previous: { ...opened.tookOverFrom }, last_seq: opened.lastSeq });
      this.#log = log;
      return log;
    })();
    return this.#opening;
  }

  async open(): Promise<EventLogStartup> {
    return (await this.#openLog()).startup;
  }

  async append(type: string, payload: Record<string, unknown>): Promise<AppendResult> {
    const log = this.#log ?? (await this.#openLog());
    return log.append(type, payload);
  }

  async flush(): Promise<void> {
    if (this.#opening) await (await this.#opening).flush();
  }

  /** Where the plugin says this persona's events are (it binds a read handle; the kernel reads). */
  placement(): EventPlacement {
    const handle = this.#session.newRead();
    this.#calls.sync('readEvents', { handle });
    const placement = this.#session.takeRead(handle);
    if (placement === undefined) contractBroken(this.#calls, `did not name where the events of persona ${this.#session.personaId} are (readEvents bound no read handle)`);
    return placement;
  }

  read(): Iterable<EventEnvelope> {
    return readPlacement(this.placement());
  }

  verify(): EventChainReport {
    return verifyPlacement(this.placement());
  }

  isEmpty(): boolean {
    return placementIsEmpty(this.placement());
  }

  async importEvents(events: Iterable<EventEnvelope>): Promise<number> {
    if (this.#session.readonly) throw kernelError('RTC_ERR_PERSISTENCE_READONLY', 'cannot import events: the persistence backend was opened read-only');
    if (this.#opening) throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', `${this.location}: events can only be imported into a store that is not open for appends`);
    let count = 0;
    let batch = new Batch();
    let firstSeq = 0;
    const flush = async () => {
      if (batch.size === 0) return;
      await storeBatch(this.#session, this.#calls, 'importEvents', batch, firstSeq);
      batch = new Batch();
    };
    for (const event of events) {
      if (batch.size === 0) firstSeq = event.seq;
      const payloadJson = canonicalJson(event.payload);
      batch.addLine(eventLine(event));
      batch.rows.push({ seq: event.seq, type: event.type, payloadJson, prev: event.prev, hash: event.hash, at: event.at });
      batch.acks.push({ result: { seq: event.seq, hash: event.hash }, resolve: () => undefined, reject: () => undefined });
      count += 1;
      if (batch.size >= IMPORT_BATCH) await flush();
    }
    await flush();
    return count;
  }

  async close(): Promise<void> {
    if (this.#opening) {
      const log = await this.#opening.catch(() => undefined);
      await log?.close();
    }
  }
}
