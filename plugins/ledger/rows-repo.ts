/**
 * The ledger's row storage inside the ledger plugin's isolate: the rows in memory, brought
 * up to date from the persona's backend through `storage.ledger.load`, and each change
 * committed through `storage.ledger.commit` only if nobody committed since the version it
 * was decided on (else the rows are reloaded and the change decided again). A committed
 * change is durable when the commit answers.
 */
import { ledgerError } from './model/ledger-error.ts';
import { describeZodError } from '../../kernel/contracts/zod-error.ts';
import { jsonlChangeSchema, jsonlHeaderSchema, type JsonlOp } from './model/jsonl-records.ts';
import { JSONL_FORMAT, newerSchemaError } from './model/schema-error.ts';
import { LEDGER_SCHEMA_VERSION, idNumber, type Checkpoint, type CounterName, type HistoryEntry, type Lease, type LeaseEvent, type Surprise, type TaskRow } from './model/records.ts';
import type { LedgerBackend, LedgerRepo } from './model/repo.ts';
import { applyOp, emptyRowState, stateFromSnapshot, type RowLoad, type RowState } from './model/row-state.ts';

declare const Runtimectl: { storage: { sync<T>(op: string, args: Record<string, unknown>): T } };

/**
 * Attempts at one change when other writers keep committing first. The commit is optimistic
 * (it names the line count it decided on): a writer in a slow isolate can lose many rounds in
 * a row to a fast one in a tight loop (20 were lost under load in CI), so the bound is wide; a
 * change that still loses is refused with RTC_ERR_LEDGER_LOCKED, never written half.
 */
const COMMIT_ATTEMPTS = 500;

const clone = <T>(value: T): T => structuredClone(value);

export function headerLine(): string {
  return `${JSON.stringify({ format: JSONL_FORMAT, schemaVersion: LEDGER_SCHEMA_VERSION })}\n`;
}

export interface RepoOptions {
  token: string;
  backend: LedgerBackend;
  /** absolute path of the ledger file, for LedgerStore.file */
  file: string;
  /** the path relative to the persona folder, for messages */
  display: string;
  readonly: boolean;
}

export class RowsRepo implements LedgerRepo {
  readonly backend: LedgerBackend;
  readonly file: string;
  readonly readonly: boolean;
  readonly #token: string;
  readonly #display: string;
  #state: RowState = emptyRowState();
  #version: number | null = null;
  /** change-log backends: the last record's seq and the complete lines applied (header included) */
  #seq = 0;
  #lines = 0;
  #pending: JsonlOp[] | undefined;

  constructor(o: RepoOptions) {
    this.#token = o.token;
    this.backend = o.backend;
    this.file = o.file;
    this.#display = o.display;
    this.readonly = o.readonly;
  }

  #corrupt(line: number, reason: string): never {
    throw ledgerError('RTC_ERR_LEDGER_CORRUPT', `${this.#display} line ${line}: ${reason}; the file was left untouched`, { file: this.#display, line, reason });
  }

  #reset(): void {
    this.#state = emptyRowState();
    this.#version = null;
    this.#seq = 0;
    this.#lines = 0;
  }

  #applyLine(text: string, line: number): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#corrupt(line, 'not a JSON record');
    }
    if (line === 1) {
      const header = jsonlHeaderSchema.safeParse(value);
      if (!header.success) this.#corrupt(line, `not a ${JSONL_FORMAT} header (${describeZodError(header.error).field}: ${describeZodError(header.error).reason})`);
      if (header.data.schemaVersion > LEDGER_SCHEMA_VERSION) throw newerSchemaError(this.#display, header.data.schemaVersion, LEDGER_SCHEMA_VERSION);
      return;
    }
    const parsed = jsonlChangeSchema.safeParse(value);
    if (!parsed.success) {
      const { field, reason } = describeZodError(parsed.error);
      this.#corrupt(line, `${field}: ${reason}`);
    }
    if (parsed.data.seq !== this.#seq + 1) this.#corrupt(line, `record seq ${parsed.data.seq} follows seq ${this.#seq} (expected ${this.#seq + 1})`);
    for (const op of parsed.data.ops) applyOp(this.#state, op);
    this.#seq = parsed.data.seq;
  }

  /** Brings the rows up to date; a writer (`repair`) also creates a missing ledger and cuts a torn tail. True when it created it. */
  load(repair: boolean): boolean {
    const answer = Runtimectl.storage.sync<RowLoad>('storage.ledger.load', { s: this.#token, since: this.#version, repair, init: headerLine() });
    if ('missing' in answer) {
      if (this.readonly) throw ledgerError('RTC_ERR_LEDGER_NOT_FOUND', `${this.#display}: no ${this.backend} ledger to read`, { file: this.#display });
      this.#reset();
      return false;
    }
    const created = answer.created === true;
    if ('log' in answer) {
      if (answer.from_start) this.#reset();
      for (const text of answer.lines) {
        this.#applyLine(text, this.#lines + 1);
        this.#lines += 1;
      }
      this.#version = answer.version;
      if (answer.cut !== undefined && answer.cut > 0) {
        // The writer cut a torn last line (never acknowledged): say so in the ledger itself.
        this.#commitRecord('repair', [], `cut ${answer.cut} bytes of an unfinished write after line ${this.#lines}`);
      }
      return created;
    }
    if (answer.schema_version > LEDGER_SCHEMA_VERSION) throw newerSchemaError(this.#display, answer.schema_version, LEDGER_SCHEMA_VERSION);
    if (answer.unchanged === true && this.#version === answer.version) return created;
    if (answer.snapshot === undefined) throw ledgerError('RTC_ERR_LEDGER_CORRUPT', `${this.#display}: the backend answered without the ledger's rows`, { file: this.#display });
    this.#state = stateFromSnapshot(answer.snapshot);
    this.#version = answer.version;
    return created;
  }

  /** One commit attempt; true when it went in. */
  #commitRecord(change: string, ops: JsonlOp[], note?: string): boolean {
    const answer = Runtimectl.storage.sync<{ ok: boolean; version?: number }>('storage.ledger.commit', {
      s: this.#token,
      base: this.#version ?? 0,
      seq: this.#seq + 1,
      change,
      ops,
      ...(note === undefined ? {} : { note }),
    });
    if (!answer.ok) return false;
    this.#version = answer.version ?? (this.#version ?? 0) + 1;
    this.#seq += 1;
    this.#lines += 1;
    return true;
  }

  refresh(): void {
    this.load(false);
  }

  transaction<T>(change: string, fn: () => T): T {
    if (this.readonly) throw ledgerError('RTC_ERR_LEDGER_INPUT', 'the ledger was opened read-only');
    if (this.#pending !== undefined) throw ledgerError('RTC_ERR_LEDGER_INPUT', 'nested ledger transaction');
    for (let attempt = 0; attempt < COMMIT_ATTEMPTS; attempt++) {
      this.load(true);
      this.#pending = [];
      let result: T;
      try {
        result = fn();
      } catch (error) {
        // Writes were applied to memory as they were made: drop them by reloading.
        if (this.#pending.length > 0) this.#reset();
        this.#pending = undefined;
        throw error;
      }
      const ops = this.#pending;
      this.#pending = undefined;
      if (ops.length === 0 || this.#commitRecord(change, ops)) return result;
      // Someone committed first: decide the change again on what is there now.
      this.#reset();
    }
    throw ledgerError('RTC_ERR_LEDGER_LOCKED', `${this.#display}: other writers kept committing first; "${change}" was not written after ${COMMIT_ATTEMPTS} attempts`, { file: this.#display });
  }

  #record(op: JsonlOp): void {
    if (this.#pending === undefined) throw ledgerError('RTC_ERR_LEDGER_INPUT', 'a ledger write outside a transaction');
    this.#pending.push(clone(op));
    applyOp(this.#state, clone(op));
  }

  counter(name: CounterName): number {
    return this.#state.counters.get(name) ?? 0;
  }

  task(id: string): TaskRow | undefined {
    const row = this.#state.tasks.get(id);
    return row && clone(row);
  }

  tasks(): TaskRow[] {
    return [...this.#state.tasks.values()].map(clone).sort((a, b) => idNumber(a.id) - idNumber(b.id));
  }

  history(taskId: string): HistoryEntry[] {
    return clone(this.#state.history.get(taskId) ?? []);
  }

  lease(resource: string): Lease | undefined {
    const lease = this.#state.leases.get(resource);
    return lease && clone(lease);
  }

  leases(): Lease[] {
    return [...this.#state.leases.values()].map(clone);
  }

  leaseEvents(): LeaseEvent[] {
    return clone(this.#state.leaseEvents);
  }

  checkpoints(taskId?: string): Checkpoint[] {
    return clone(this.#state.checkpoints.filter((c) => taskId === undefined || c.taskId === taskId)).sort((a, b) => idNumber(a.taskId) - idNumber(b.taskId) || a.seq - b.seq);
  }

  surprise(id: string): Surprise | undefined {
    const s = this.#state.surprises.get(id);
    return s && clone(s);
  }

  surprises(): Surprise[] {
    return [...this.#state.surprises.values()].map(clone).sort((a, b) => idNumber(a.id) - idNumber(b.id));
  }

  setCounter(name: CounterName, value: number): void {
    this.#record({ op: 'counter', name, value });
  }

  putTask(row: TaskRow): void {
    this.#record({ op: 'task', row });
  }

  addHistory(taskId: string, entry: HistoryEntry): void {
    this.#record({ op: 'history', taskId, entry });
  }

  putLease(lease: Lease): void {
    this.#record({ op: 'lease', lease });
  }

  deleteLease(resource: string): void {
    this.#record({ op: 'lease-delete', resource });
  }

  addLeaseEvent(event: LeaseEvent): void {
    this.#record({ op: 'lease-event', event });
  }

  addCheckpoint(checkpoint: Checkpoint): void {
    this.#record({ op: 'checkpoint', checkpoint });
  }

  putSurprise(surprise: Surprise): void {
    this.#record({ op: 'surprise', surprise });
  }

  close(): void {}
}
