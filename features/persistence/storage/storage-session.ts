/**
 * The kernel's side of an isolated persistence backend: one StorageSession per persona the
 * backend serves, held by the kernel, never by the plugin. The plugin is handed an opaque
 * token; every storage binding it calls names the token, and the kernel checks each call
 * against that session: the persona's own folder, read-only or not, the event placement
 * the kernel writes and reads itself, and the batches it handed over.
 *
 * A StorageHost holds the sessions of one backend plugin instance (one isolate serves every
 * persona of this kernel that chose it: isolates are too heavy to keep one per persona for
 * a thousand personas). A token is 128 random bits and valid only on the host that made it.
 */
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { Batch } from '../../../kernel/events/batch.ts';
import type { FileSink, OpenedHead } from '../../../kernel/events/event-log.ts';
import type { EventOpenOptions } from '../../../kernel/contracts/persistence.ts';
import { DenoOpError } from '../../../kernel/broker/deno-error.ts';
import { noSession, type StorageBindingName } from './binding-kit.ts';
import { kernelError } from '../../../kernel/errors.ts';
import { resolveInside } from '../state/path-guard.ts';
import type { PgBridge } from './postgres/pg-bridge.ts';
import type { Lease, LeaseHolder } from './postgres/pg-lease.ts';
import type { MigrationRecord } from './sqlite-events-db.ts';

/** Where this session's events are: a file the kernel writes (jsonl-fs), a table (sqlite), or rows keyed by persona (postgres). */
export type EventPlacement =
  | { kind: 'file'; relative: string; file: string }
  | { kind: 'sqlite'; db: string; file: string }
  | { kind: 'postgres'; persona: string; bridge: PgBridge };

/** The verified head of a placement opened for appends, its open segment and sealed side, and what opening it repaired. */
export interface OpenedEvents extends OpenedHead {
  placement: EventPlacement;
  /** the open log file (file placements) */
  sink?: FileSink;
  /** a shared store's previous writer, whose expired lease this session took over */
  tookOverFrom?: LeaseHolder;
  /** the kernel's tables moved out of a previous version's persistence.db, not yet written to the chain (sqlite-events-db.ts) */
  migrated?: MigrationRecord;
}

/** The row storage a ledger session forwards to: the persona's persistence backend, for one ledger file. */
export interface LedgerRows {
  /** the ledger's database path, relative to the persona folder (from its config.yaml) */
  readonly db: string;
  load(args: { db: string; since: number | null; repair: boolean; init: string }): unknown;
  commit(args: { db: string; base: number; seq: number; change: string; ops: unknown[]; note?: string }): unknown;
}

interface HandedBatch {
  batch: Batch;
  firstSeq: number;
  stored: boolean;
}

/**
 * Files the kernel itself writes in a persona folder: the event log (and, with issue 14,
 * its sealed segments and checkpoints), the replay trace, the backend choice and the writer
 * lock, the relay pointer and the tool plan. The generic file bindings refuse to write, create, truncate or remove anything here.
 */
export const KERNEL_FILE_PREFIXES = ['logs/', 'trace/'] as const;
export const KERNEL_FILES = ['persistence.yaml', 'writer.lock', 'writer.lock.json', 'tools-relay.json', 'tools-plan.json'] as const;

/** The one event placement a files backend may name (segments under logs/ join it with issue 14). */
export const FILE_EVENT_PLACEMENTS = ['logs/events.jsonl'] as const;

export function isKernelFile(relative: string): boolean {
  const normal = path.posix.normalize(relative.split(/[\\/]+/).filter((p) => p !== '' && p !== '.').join('/'));
  return KERNEL_FILES.includes(normal as (typeof KERNEL_FILES)[number]) || KERNEL_FILE_PREFIXES.some((prefix) => normal === prefix.slice(0, -1) || normal.startsWith(prefix));
}

function refused(message: string): never {
  throw new DenoOpError('Error', `${message}`, 'RTC_ERR_PERSISTENCE_BACKEND');
}

export class StorageSession {
  readonly token: string;
  readonly personaId: string;
  readonly personaDir: string;
  readonly readonly: boolean;
  /** set by an events.open binding: the placement appends go to */
  opened: OpenedEvents | undefined;
  /** what the kernel asks of the next events.open: the rollup sealed segments carry, and each open-segment event as it is checked */
  openOptions: EventOpenOptions = {};
  /** the placement this session's events were first read from or opened at: later calls must name the same */
  pinned: EventPlacement | undefined;
  readonly #batches = new Map<number, HandedBatch>();
  #nextBatch = 1;
  #nextToStore = 1;
  readonly #reads = new Map<number, EventPlacement | undefined>();
  #nextRead = 1;
  /** the plugin's sqlite connections by database path (sqlite-bindings.ts): its own files only */
  readonly sqlite = new Map<string, { db: Database.Database; writable: boolean }>();
  /** the kernel's own writable connections (sqlite-events-db.ts: logs/events.db), never handed to a plugin op */
  readonly kernelSqlite = new Map<string, Database.Database>();
  /** a ledger session: where `storage.ledger` forwards to (the persona's backend, ledger-bindings.ts) */
  ledgerRows: LedgerRows | undefined;
  /** a postgres session: the database, the login role the plugin's statements run as (postgres/pg-roles.ts), and this persona's lease once taken (postgres/pg-bindings.ts) */
  postgres: { bridge: PgBridge; login?: string; lease?: Lease; leaseSeconds?: number } | undefined;
  /** anything else a binding keeps for the session, closed with it */
  readonly closers: (() => void | Promise<void>)[] = [];
  closed = false;

  constructor(personaId: string, personaDir: string, readonly: boolean) {
    this.token = randomBytes(16).toString('hex');
    this.personaId = personaId;
    this.personaDir = personaDir;
    this.readonly = readonly;
  }

  /** The real path of `relative` inside the persona folder (RTC_ERR_PERSISTENCE_PATH_ESCAPE otherwise). */
  resolve(relative: string): string {
    return resolveInside({ code: 'RTC_ERR_PERSISTENCE_PATH_ESCAPE', what: 'persistence path' }, this.personaDir, relative);
  }

  /** Whether a real path (resolve()'s answer) is one of the kernel's files: named lexically or reached through a link. */
  isKernelPath(file: string): boolean {
    let root: string;
    try {
      root = realpathSync.native(this.personaDir);
    } catch {
      root = path.resolve(this.personaDir);
    }
    return isKernelFile(path.relative(root, file).split(path.sep).join('/'));
  }

  /** As resolve(), for a write through a generic binding: refused on a read-only session and on the kernel's own files. */
  resolveForWrite(relative: string, what: string): string {
    if (this.readonly) throw new DenoOpError('Error', `${relative}: cannot ${what}: the persistence backend was opened read-only`, 'RTC_ERR_PERSISTENCE_READONLY');
    const file = this.resolve(relative);
    if (isKernelFile(relative) || this.isKernelPath(file)) refused(`${relative}: cannot ${what}: the kernel writes this file itself (the event log, the trace, the backend choice and the writer lock are never a plugin's to write)`);
    return file;
  }

  /** Closes the session's connections to `relative` (a ledger file closed, about to be renamed or read by another handle). */
  releaseFile(relative: string): void {
    let file: string;
    try {
      file = this.resolve(relative);
    } catch {
      return;
    }
    const held = this.sqlite.get(file);
    if (held === undefined) return;
    this.sqlite.delete(file);
    held.db.close();
  }

  /** Pins the session's event placement: every events binding of the session must name the same one. */
  pin(placement: EventPlacement): void {
    if (this.pinned === undefined) {
      this.pinned = placement;
      return;
    }
    if (placementKey(this.pinned) !== placementKey(placement)) {
      refused(`events of persona ${this.personaId} are at ${placementKey(this.pinned)}; a binding named ${placementKey(placement)}`);
    }
  }

  // ---- batches handed over by reference ------------------------------------------------

  /** Registers a batch the kernel is about to hand to the plugin; returns its id. */
  handOver(batch: Batch, firstSeq: number): number {
    const id = this.#nextBatch++;
    this.#batches.set(id, { batch, firstSeq, stored: false });
    return id;
  }

  /** The batch a binding is asked to store: the next one in order, not stored before. */
  take(id: unknown): { batch: Batch; firstSeq: number } {
    const handed = typeof id === 'number' ? this.#batches.get(id) : undefined;
    if (handed === undefined) refused(`batch ${JSON.stringify(id)} was never handed over for persona ${this.personaId} (a backend stores only the batches the kernel gives it)`);
    if (handed.stored) refused(`batch ${id} of persona ${this.personaId} is already stored (a batch is stored once)`);
    if (id !== this.#nextToStore) refused(`batch ${id} of persona ${this.personaId} is out of order: batch ${this.#nextToStore} comes first`);
    return handed;
  }

  markStored(id: number): void {
    const handed = this.#batches.get(id);
    if (handed === undefined || handed.stored) return;
    handed.stored = true;
    this.#nextToStore = id + 1;
  }

  isStored(id: number): boolean {
    return this.#batches.get(id)?.stored === true;
  }

  /** Drops a batch once the kernel has its answer. */
  release(id: number): void {
    this.#batches.delete(id);
  }

  // ---- reads by reference ---------------------------------------------------------------

  /** A read handle the kernel gives the plugin; the binding fills in where the events are. */
  newRead(): number {
    const id = this.#nextRead++;
    this.#reads.set(id, undefined);
    return id;
  }

  /** The binding's side: the handle now reads `placement` (which is pinned). */
  bindRead(id: unknown, placement: EventPlacement): void {
    if (typeof id !== 'number' || !this.#reads.has(id)) refused(`read handle ${JSON.stringify(id)} was never given out for persona ${this.personaId}`);
    if (this.#reads.get(id) !== undefined) refused(`read handle ${id} is already bound`);
    this.pin(placement);
    this.#reads.set(id, placement);
  }

  /** The kernel's side: where handle `id` reads (undefined when the plugin bound nothing). */
  takeRead(id: number): EventPlacement | undefined {
    const placement = this.#reads.get(id);
    this.#reads.delete(id);
    return placement;
  }
}

export function placementKey(p: EventPlacement): string {
  return p.kind === 'file' ? p.relative : p.kind === 'sqlite' ? `${p.db}#events` : `${p.bridge.where}#events(${p.persona})`;
}

export class StorageHost {
  readonly #sessions = new Map<string, StorageSession>();

  open(personaId: string, personaDir: string, readonly: boolean): StorageSession {
    const session = new StorageSession(personaId, personaDir, readonly);
    this.#sessions.set(session.token, session);
    return session;
  }

  /** The session a binding call names; anything else is refused. */
  get(token: unknown, binding: StorageBindingName): StorageSession {
    const session = typeof token === 'string' ? this.#sessions.get(token) : undefined;
    if (session === undefined || session.closed) throw noSession(binding, 'Requires a storage session: the token names no open persona on this backend');
    return session;
  }

  async close(session: StorageSession): Promise<void> {
    if (session.closed) return;
    session.closed = true;
    this.#sessions.delete(session.token);
    const errors: unknown[] = [];
    for (const close of session.closers.reverse()) {
      try {
        await close();
      } catch (error) {
        errors.push(error);
      }
    }
    for (const db of [...[...session.sqlite.values()].map((c) => c.db), ...session.kernelSqlite.values()]) {
      try {
        db.close();
      } catch (error) {
        errors.push(error);
      }
    }
    session.sqlite.clear();
    session.kernelSqlite.clear();
    if (session.opened?.sink) await session.opened.sink.close();
    if (errors.length > 0) throw kernelError('RTC_ERR_PERSISTENCE_BACKEND', `closing the storage of persona ${session.personaId} failed: ${String((errors[0] as Error)?.message ?? errors[0])}`, { internal: true });
  }

  /** close() for a session whose closers are synchronous (a ledger session): done when it returns. */
  closeSync(session: StorageSession): void {
    if (session.closed) return;
    session.closed = true;
    this.#sessions.delete(session.token);
    for (const close of session.closers.reverse()) void close();
    for (const { db } of session.sqlite.values()) db.close();
    for (const db of session.kernelSqlite.values()) db.close();
    session.sqlite.clear();
    session.kernelSqlite.clear();
    if (session.opened?.sink) void session.opened.sink.close();
  }

  get size(): number {
    return this.#sessions.size;
  }
}
