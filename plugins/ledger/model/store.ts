/**
 * The ledger's rules, written once over any backend (repo.ts): the task lifecycle, resource
 * leases, checkpoints and surprises. Each public change is one repo transaction, so it is
 * all-or-nothing and durable when the call returns.
 *
 * Time is always the caller's `now` (milliseconds): the broker supplies clocks, and a
 * ledger rebuilt from the same calls is the same ledger.
 */
import { z } from 'zod';
import { ledgerError } from './ledger-error.ts';
import { describeZodError } from '../../../kernel/contracts/zod-error.ts';
import { findLedgerProblems } from './consistency-rules.ts';
import { newerSchemaError } from './schema-error.ts';
import { assertTransition, legalTargets, type TaskState } from './lifecycle.ts';
import {
  LEDGER_SCHEMA_VERSION,
  MAX_AFFECTS,
  MAX_EVIDENCE,
  MAX_TEXT,
  checkpointBodySchema,
  formatId,
  ledgerExportSchema,
  nameSchema,
  resourceSchema,
  surpriseIdSchema,
  taskIdSchema,
  textSchema,
  timeSchema,
  leaseSchema,
  type Checkpoint,
  type CheckpointInput,
  type Lease,
  type LeaseEvent,
  type LedgerExport,
  type Surprise,
  type Task,
  type TaskRow,
} from './records.ts';
import type { LedgerBackend, LedgerRepo } from './repo.ts';

/** Who made a change and when (the caller's clock, in ms). */
export interface Actor {
  by: string;
  now: number;
}

export interface NewTask extends Actor {
  title: string;
  description?: string;
}

export interface NewSurprise extends Actor {
  observation: string;
  /** Paths, digests or log references that show it. */
  evidence?: string[];
  /** Task ids the surprise blocks until it is resolved. */
  affects?: string[];
}

export interface LedgerStore {
  readonly backend: LedgerBackend;
  /** Absolute path of the ledger file. */
  readonly file: string;

  addTask(input: NewTask): Task;
  getTask(id: string): Task;
  listTasks(filter?: { state?: TaskState }): Task[];
  /** The states the task may move to now. */
  nextStates(id: string): readonly TaskState[];
  moveTask(id: string, to: TaskState, change: Actor & { reason?: string }): Task;

  /** Takes a lease; the same owner taking it again renews it. */
  acquireLease(resource: string, owner: string, ttlMs: number, now: number): Lease;
  renewLease(resource: string, owner: string, ttlMs: number, now: number): Lease;
  releaseLease(resource: string, owner: string, now: number): void;
  /** The lead's finding about a lease's owner: gone frees the resource, alive keeps the lease. */
  reconcileLease(resource: string, finding: Actor & { ownerGone: boolean; reason?: string }): { lease: Lease; released: boolean };
  getLease(resource: string): Lease | undefined;
  listLeases(): Lease[];
  leaseEvents(resource?: string): LeaseEvent[];

  addCheckpoint(taskId: string, body: CheckpointInput, actor: Actor): Checkpoint;
  latestCheckpoint(taskId: string): Checkpoint | undefined;
  listCheckpoints(taskId: string): Checkpoint[];

  recordSurprise(input: NewSurprise): { surprise: Surprise; blocked: string[] };
  resolveSurprise(id: string, resolution: Actor & { outcome: string }): { surprise: Surprise; unblocked: string[] };
  getSurprise(id: string): Surprise;
  listSurprises(filter?: { state?: 'open' | 'resolved' }): Surprise[];

  exportLedger(): LedgerExport;
  /** Copies an export into this ledger, which must be empty. */
  importLedger(doc: unknown): void;
  close(): void;
}

/** Every LedgerStore method by name: what the ledger plugin answers and the host's plugin-backed store forwards (one list for both). */
export const LEDGER_STORE_METHODS = [
  'addTask',
  'getTask',
  'listTasks',
  'nextStates',
  'moveTask',
  'acquireLease',
  'renewLease',
  'releaseLease',
  'reconcileLease',
  'getLease',
  'listLeases',
  'leaseEvents',
  'addCheckpoint',
  'latestCheckpoint',
  'listCheckpoints',
  'recordSurprise',
  'resolveSurprise',
  'getSurprise',
  'listSurprises',
  'exportLedger',
  'importLedger',
] as const satisfies readonly (keyof LedgerStore)[];

function input<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const { field, reason } = describeZodError(result.error);
    const where = field === '(root)' ? what : `${what}.${field}`;
    throw ledgerError('RTC_ERR_LEDGER_INPUT', `${where}: ${reason}`, { field: where, reason });
  }
  return result.data;
}

const actorSchema = z.object({ by: nameSchema, now: timeSchema });
const ttlSchema = leaseSchema.shape.ttlMs;

function notFound(kind: string, id: string): never {
  throw ledgerError('RTC_ERR_LEDGER_NOT_FOUND', `no ${kind} ${JSON.stringify(id)} in the ledger`, { kind, id });
}

function excerpt(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

class RuleStore implements LedgerStore {
  constructor(private readonly repo: LedgerRepo) {}

  get backend(): LedgerBackend {
    return this.repo.backend;
  }

  get file(): string {
    return this.repo.file;
  }

  private read<T>(fn: () => T): T {
    this.repo.refresh();
    return fn();
  }

  private withHistory(row: TaskRow): Task {
    return { ...row, history: this.repo.history(row.id) };
  }

  private requireTask(id: string): TaskRow {
    return this.repo.task(id) ?? notFound('task', id);
  }

  private openSurprisesAffecting(taskId: string, except?: string): Surprise[] {
    return this.repo.surprises().filter((s) => s.state === 'open' && s.id !== except && s.affects.includes(taskId));
  }

  /** Moves a task and appends its history entry: the one way a state changes. */
  private setState(row: TaskRow, to: TaskState, actor: Actor, reason: string, bySurprise: boolean): void {
    this.repo.putTask({
      ...row,
      state: to,
      blockedFrom: to === 'blocked' ? row.state : null,
      blockedBySurprise: to === 'blocked' && bySurprise,
      updatedAt: actor.now,
    });
    this.repo.addHistory(row.id, { at: actor.now, by: actor.by, from: row.state, to, reason });
  }

  // ---- tasks

  addTask(task: NewTask): Task {
    const actor = input(actorSchema, task, 'task');
    const title = input(z.string().trim().min(1).max(MAX_TEXT), task.title, 'title');
    const description = input(textSchema, task.description ?? '', 'description');
    return this.repo.transaction('task.add', () => {
      const n = this.repo.counter('task') + 1;
      const row: TaskRow = {
        id: formatId('T', n),
        title,
        description,
        state: 'proposed',
        blockedFrom: null,
        blockedBySurprise: false,
        createdAt: actor.now,
        updatedAt: actor.now,
      };
      this.repo.setCounter('task', n);
      this.repo.putTask(row);
      this.repo.addHistory(row.id, { at: actor.now, by: actor.by, from: null, to: 'proposed', reason: 'created' });
      return this.withHistory(row);
    });
  }

  getTask(id: string): Task {
    return this.read(() => this.withHistory(this.requireTask(id)));
  }

  listTasks(filter: { state?: TaskState } = {}): Task[] {
    return this.read(() =>
      this.repo
        .tasks()
        .filter((t) => filter.state === undefined || t.state === filter.state)
        .map((t) => this.withHistory(t)),
    );
  }

  nextStates(id: string): readonly TaskState[] {
    return this.read(() => {
      const row = this.requireTask(id);
      if (row.state === 'blocked' && this.openSurprisesAffecting(id).length > 0) return [];
      return legalTargets(row.state, row.blockedFrom);
    });
  }

  moveTask(id: string, to: TaskState, change: Actor & { reason?: string }): Task {
    const actor = input(actorSchema, change, 'move');
    const reason = input(textSchema, change.reason ?? '', 'reason');
    return this.repo.transaction('task.move', () => {
      const row = this.requireTask(id);
      assertTransition(id, row.state, to, row.blockedFrom);
      const open = row.state === 'blocked' ? this.openSurprisesAffecting(id) : [];
      if (open.length > 0) {
        const ids = open.map((s) => s.id);
        throw ledgerError(
          'RTC_ERR_LEDGER_BLOCKED',
          `task ${id} is blocked by open surprise ${ids.join(', ')}; resolve ${ids.length === 1 ? 'it' : 'them'} first (runtimectl ledger surprise resolve ${ids[0]})`,
          { task: id, surprises: ids },
        );
      }
      this.setState(row, to, actor, reason, false);
      return this.withHistory(this.requireTask(id));
    });
  }

  // ---- leases

  private leaseArgs(resource: string, owner: string, now: number) {
    return {
      resource: input(resourceSchema, resource, 'resource'),
      owner: input(nameSchema, owner, 'owner'),
      now: input(timeSchema, now, 'now'),
    };
  }

  private expiry(now: number, ttlMs: number): number {
    const ttl = input(ttlSchema, ttlMs, 'ttlMs');
    return input(timeSchema, now + ttl, 'expiresAt');
  }

  acquireLease(resource: string, owner: string, ttlMs: number, now: number): Lease {
    const args = this.leaseArgs(resource, owner, now);
    const expiresAt = this.expiry(args.now, ttlMs);
    return this.repo.transaction('lease.acquire', () => {
      const current = this.repo.lease(args.resource);
      if (current !== undefined && current.owner !== args.owner) {
        if (args.now < current.expiresAt) {
          throw ledgerError(
            'RTC_ERR_LEDGER_LEASE_HELD',
            `resource "${args.resource}" is leased to ${current.owner} until ${current.expiresAt} (${current.expiresAt - args.now} ms from now)`,
            { resource: args.resource, owner: current.owner, expiresAt: current.expiresAt },
          );
        }
        throw ledgerError(
          'RTC_ERR_LEDGER_LEASE_STALE',
          `the lease on "${args.resource}" held by ${current.owner} expired at ${current.expiresAt}, but an expired lease is not free: reconcile first (runtimectl ledger lease reconcile "${args.resource}" --owner-gone) once ${current.owner} is confirmed gone`,
          { resource: args.resource, owner: current.owner, expiresAt: current.expiresAt },
        );
      }
      const lease: Lease =
        current === undefined
          ? { resource: args.resource, owner: args.owner, acquiredAt: args.now, renewedAt: args.now, ttlMs, expiresAt }
          : { ...current, renewedAt: args.now, ttlMs, expiresAt };
      this.repo.putLease(lease);
      this.repo.addLeaseEvent({ resource: args.resource, owner: args.owner, event: current === undefined ? 'acquired' : 'renewed', at: args.now, by: args.owner, reason: '' });
      return lease;
    });
  }

  private requireOwnLease(resource: string, owner: string, doing: string): Lease {
    const current = this.repo.lease(resource) ?? notFound('lease on', resource);
    if (current.owner !== owner) {
      throw ledgerError('RTC_ERR_LEDGER_LEASE_NOT_OWNER', `${owner} cannot ${doing} the lease on "${resource}": it is held by ${current.owner}`, { resource, owner: current.owner, asked: owner });
    }
    return current;
  }

  renewLease(resource: string, owner: string, ttlMs: number, now: number): Lease {
    const args = this.leaseArgs(resource, owner, now);
    const expiresAt = this.expiry(args.now, ttlMs);
    return this.repo.transaction('lease.renew', () => {
      // An owner may renew its own expired lease: nobody else could have taken it meanwhile.
      const lease = { ...this.requireOwnLease(args.resource, args.owner, 'renew'), renewedAt: args.now, ttlMs, expiresAt };
      this.repo.putLease(lease);
      this.repo.addLeaseEvent({ resource: args.resource, owner: args.owner, event: 'renewed', at: args.now, by: args.owner, reason: '' });
      return lease;
    });
  }

  releaseLease(resource: string, owner: string, now: number): void {
    const args = this.leaseArgs(resource, owner, now);
    this.repo.transaction('lease.release', () => {
      this.requireOwnLease(args.resource, args.owner, 'release');
      this.repo.deleteLease(args.resource);
      this.repo.addLeaseEvent({ resource: args.resource, owner: args.owner, event: 'released', at: args.now, by: args.owner, reason: '' });
    });
  }

  reconcileLease(resource: string, finding: Actor & { ownerGone: boolean; reason?: string }): { lease: Lease; released: boolean } {
    const actor = input(actorSchema, finding, 'reconcile');
    const name = input(resourceSchema, resource, 'resource');
    const reason = input(textSchema, finding.reason ?? '', 'reason');
    return this.repo.transaction('lease.reconcile', () => {
      const lease = this.repo.lease(name) ?? notFound('lease on', name);
      if (finding.ownerGone) this.repo.deleteLease(name);
      this.repo.addLeaseEvent({
        resource: name,
        owner: lease.owner,
        event: finding.ownerGone ? 'reconciled-gone' : 'reconciled-alive',
        at: actor.now,
        by: actor.by,
        reason,
      });
      return { lease, released: finding.ownerGone };
    });
  }

  getLease(resource: string): Lease | undefined {
    return this.read(() => this.repo.lease(resource));
  }

  listLeases(): Lease[] {
    return this.read(() => this.repo.leases().sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0)));
  }

  leaseEvents(resource?: string): LeaseEvent[] {
    return this.read(() => this.repo.leaseEvents().filter((e) => resource === undefined || e.resource === resource));
  }

  // ---- checkpoints

  addCheckpoint(taskId: string, body: CheckpointInput, actor: Actor): Checkpoint {
    const who = input(actorSchema, actor, 'checkpoint');
    const checked = input(checkpointBodySchema, body, 'checkpoint');
    return this.repo.transaction('checkpoint.add', () => {
      this.requireTask(taskId);
      const previous = this.repo.checkpoints(taskId);
      const checkpoint: Checkpoint = { taskId, seq: previous.length + 1, at: who.now, by: who.by, body: checked };
      this.repo.addCheckpoint(checkpoint);
      return checkpoint;
    });
  }

  latestCheckpoint(taskId: string): Checkpoint | undefined {
    return this.listCheckpoints(taskId).at(-1);
  }

  listCheckpoints(taskId: string): Checkpoint[] {
    return this.read(() => {
      this.requireTask(taskId);
      return this.repo.checkpoints(taskId);
    });
  }

  // ---- surprises

  recordSurprise(surprise: NewSurprise): { surprise: Surprise; blocked: string[] } {
    const actor = input(actorSchema, surprise, 'surprise');
    const observation = input(z.string().trim().min(1).max(MAX_TEXT), surprise.observation, 'observation');
    const evidence = input(z.array(z.string().min(1).max(MAX_TEXT)).max(MAX_EVIDENCE), surprise.evidence ?? [], 'evidence');
    const affects = [...new Set(input(z.array(taskIdSchema).max(MAX_AFFECTS), surprise.affects ?? [], 'affects'))];
    return this.repo.transaction('surprise.record', () => {
      const rows = affects.map((id) => this.requireTask(id));
      const accepted = rows.find((row) => row.state === 'accepted');
      if (accepted !== undefined) {
        throw ledgerError(
          'RTC_ERR_LEDGER_TRANSITION',
          `task ${accepted.id} is accepted, which is final; a surprise cannot block it (record the doubt against a new task)`,
          { task: accepted.id },
        );
      }
      const n = this.repo.counter('surprise') + 1;
      const record: Surprise = {
        id: formatId('S', n),
        observation,
        evidence,
        affects,
        state: 'open',
        recordedAt: actor.now,
        recordedBy: actor.by,
        resolvedAt: null,
        resolvedBy: null,
        outcome: null,
      };
      this.repo.setCounter('surprise', n);
      this.repo.putSurprise(record);
      const blocked: string[] = [];
      for (const row of rows) {
        if (row.state === 'blocked') continue; // already paused; it stays paused for this one too
        this.setState(row, 'blocked', actor, `surprise ${record.id}: ${excerpt(observation)}`, true);
        blocked.push(row.id);
      }
      return { surprise: record, blocked };
    });
  }

  resolveSurprise(id: string, resolution: Actor & { outcome: string }): { surprise: Surprise; unblocked: string[] } {
    const actor = input(actorSchema, resolution, 'resolution');
    const surpriseId = input(surpriseIdSchema, id, 'surprise');
    const outcome = input(z.string().trim().min(1).max(MAX_TEXT), resolution.outcome, 'outcome');
    return this.repo.transaction('surprise.resolve', () => {
      const current = this.repo.surprise(surpriseId) ?? notFound('surprise', surpriseId);
      if (current.state !== 'open') {
        throw ledgerError('RTC_ERR_LEDGER_INPUT', `surprise ${surpriseId} was already resolved at ${current.resolvedAt} by ${current.resolvedBy}`, { surprise: surpriseId });
      }
      const resolved: Surprise = { ...current, state: 'resolved', resolvedAt: actor.now, resolvedBy: actor.by, outcome };
      this.repo.putSurprise(resolved);
      const unblocked: string[] = [];
      for (const taskId of current.affects) {
        const row = this.requireTask(taskId);
        // A block placed by hand stays until lifted by hand; one placed by surprises lifts with the last of them.
        if (row.state !== 'blocked' || !row.blockedBySurprise || row.blockedFrom === null) continue;
        if (this.openSurprisesAffecting(taskId, surpriseId).length > 0) continue;
        this.setState(row, row.blockedFrom, actor, `surprise ${surpriseId} resolved: ${excerpt(outcome)}`, false);
        unblocked.push(taskId);
      }
      return { surprise: resolved, unblocked };
    });
  }

  getSurprise(id: string): Surprise {
    return this.read(() => this.repo.surprise(id) ?? notFound('surprise', id));
  }

  listSurprises(filter: { state?: 'open' | 'resolved' } = {}): Surprise[] {
    return this.read(() => this.repo.surprises().filter((s) => filter.state === undefined || s.state === filter.state));
  }

  // ---- export and import

  exportLedger(): LedgerExport {
    return this.read(() => ({
      format: 'runtimectl-ledger-export',
      schemaVersion: LEDGER_SCHEMA_VERSION,
      counters: { task: this.repo.counter('task'), surprise: this.repo.counter('surprise') },
      tasks: this.repo.tasks().map((t) => this.withHistory(t)),
      leases: this.repo.leases().sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0)),
      leaseEvents: this.repo.leaseEvents(),
      checkpoints: this.repo.checkpoints(),
      surprises: this.repo.surprises(),
    }));
  }

  importLedger(doc: unknown): void {
    const parsed = ledgerExportSchema.safeParse(doc);
    if (!parsed.success) {
      const { field, reason } = describeZodError(parsed.error);
      throw ledgerError('RTC_ERR_LEDGER_IMPORT', `ledger export: ${field}: ${reason}`, { field, reason });
    }
    const data = parsed.data;
    if (data.schemaVersion > LEDGER_SCHEMA_VERSION) throw newerSchemaError('ledger export', data.schemaVersion, LEDGER_SCHEMA_VERSION);
    const problem = findLedgerProblems(data)[0];
    if (problem !== undefined) {
      throw ledgerError('RTC_ERR_LEDGER_IMPORT', `ledger export is inconsistent at ${problem.position}: ${problem.problem}`, { ...problem });
    }
    this.repo.transaction('ledger.import', () => {
      const empty =
        this.repo.counter('task') === 0 &&
        this.repo.counter('surprise') === 0 &&
        this.repo.tasks().length === 0 &&
        this.repo.leases().length === 0 &&
        this.repo.leaseEvents().length === 0 &&
        this.repo.surprises().length === 0;
      if (!empty) throw ledgerError('RTC_ERR_LEDGER_IMPORT', `${this.repo.backend} ledger ${this.repo.file} is not empty; import only into a new ledger`);
      this.repo.setCounter('task', data.counters.task);
      this.repo.setCounter('surprise', data.counters.surprise);
      for (const { history, ...row } of data.tasks) {
        this.repo.putTask(row);
        for (const entry of history) this.repo.addHistory(row.id, entry);
      }
      for (const lease of data.leases) this.repo.putLease(lease);
      for (const event of data.leaseEvents) this.repo.addLeaseEvent(event);
      for (const checkpoint of data.checkpoints) this.repo.addCheckpoint(checkpoint);
      for (const surprise of data.surprises) this.repo.putSurprise(surprise);
    });
  }

  close(): void {
    this.repo.close();
  }
}

export function ledgerStoreOver(repo: LedgerRepo): LedgerStore {
  return new RuleStore(repo);
}
