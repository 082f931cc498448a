/**
 * The `jsonl-fs` ledger backend: an append-only record log at `orchestra/orchestra.db`, one
 * JSON line per committed change, fsynced before the change is reported done. The state
 * lives in memory and is rebuilt at open by replaying every line.
 *
 * - A line cut short by a crash (no trailing newline) was never acknowledged: a writer cuts
 *   it off and appends a `repair` record saying how many bytes it cut. A reader ignores it.
 * - A bad line anywhere else is evidence, not debris: the ledger is refused with the line
 *   number and reason, and the file is never rewritten.
 * - The header's schema version is checked before anything is written.
 * - Writers from several processes take a short file lock per change and first catch up on
 *   lines others appended, so records never interleave and no change is based on stale state.
 */
import { closeSync, fstatSync, fsyncSync, openSync, readSync, truncateSync, writeSync, constants } from 'node:fs';
import path from 'node:path';
import { kernelError, isKernelError } from '../../kernel/errors.ts';
import { describeZodError } from '../../kernel/manifest/load.ts';
import { withFileLock } from './file-lock.ts';
import { JSONL_FORMAT, assertFormat, newerSchemaError } from './format.ts';
import { jsonlChangeSchema, jsonlHeaderSchema, type JsonlChange, type JsonlOp } from './jsonl-records.ts';
import {
  LEDGER_SCHEMA_VERSION,
  idNumber,
  type Checkpoint,
  type CounterName,
  type HistoryEntry,
  type Lease,
  type LeaseEvent,
  type Surprise,
  type TaskRow,
} from './records.ts';
import type { LedgerRepo, RepoOpenOptions } from './repo.ts';
import { openRegular, openRegularFile } from '../../kernel/storage/safe-read.ts';

interface MemoryState {
  counters: Map<CounterName, number>;
  tasks: Map<string, TaskRow>;
  history: Map<string, HistoryEntry[]>;
  leases: Map<string, Lease>;
  leaseEvents: LeaseEvent[];
  checkpoints: Checkpoint[];
  surprises: Map<string, Surprise>;
}

function emptyState(): MemoryState {
  return { counters: new Map(), tasks: new Map(), history: new Map(), leases: new Map(), leaseEvents: [], checkpoints: [], surprises: new Map() };
}

function applyOp(state: MemoryState, op: JsonlOp): void {
  switch (op.op) {
    case 'counter':
      state.counters.set(op.name, op.value);
      return;
    case 'task':
      state.tasks.set(op.row.id, op.row);
      return;
    case 'history': {
      const list = state.history.get(op.taskId) ?? [];
      list.push(op.entry);
      state.history.set(op.taskId, list);
      return;
    }
    case 'lease':
      state.leases.set(op.lease.resource, op.lease);
      return;
    case 'lease-delete':
      state.leases.delete(op.resource);
      return;
    case 'lease-event':
      state.leaseEvents.push(op.event);
      return;
    case 'checkpoint':
      state.checkpoints.push(op.checkpoint);
      return;
    case 'surprise':
      state.surprises.set(op.surprise.id, op.surprise);
      return;
  }
}

const clone = <T>(value: T): T => structuredClone(value);

export function headerLine(): string {
  return `${JSON.stringify({ format: JSONL_FORMAT, schemaVersion: LEDGER_SCHEMA_VERSION })}\n`;
}

class JsonlRepo implements LedgerRepo {
  readonly backend = 'jsonl-fs' as const;
  private state = emptyState();
  /** Bytes of complete lines already applied. */
  private offset = 0;
  /** Complete lines already applied, the header included. */
  private lines = 0;
  private seq = 0;
  private pending: JsonlOp[] | undefined;
  private fd: number | undefined;

  constructor(
    readonly file: string,
    private readonly displayName: string,
    readonly readonly: boolean,
  ) {}

  private corrupt(line: number, reason: string): never {
    throw kernelError('RTC_ERR_LEDGER_CORRUPT', `${this.displayName} line ${line}: ${reason}; the file was left untouched`, {
      details: { file: this.displayName, line, reason },
    });
  }

  private applyLine(text: string, line: number): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.corrupt(line, 'not a JSON record');
    }
    if (line === 1) {
      const header = jsonlHeaderSchema.safeParse(value);
      if (!header.success) this.corrupt(line, `not a ${JSONL_FORMAT} header (${describeZodError(header.error).field}: ${describeZodError(header.error).reason})`);
      if (header.data.schemaVersion > LEDGER_SCHEMA_VERSION) throw newerSchemaError(this.displayName, header.data.schemaVersion, LEDGER_SCHEMA_VERSION);
      return;
    }
    const parsed = jsonlChangeSchema.safeParse(value);
    if (!parsed.success) {
      const { field, reason } = describeZodError(parsed.error);
      this.corrupt(line, `${field}: ${reason}`);
    }
    if (parsed.data.seq !== this.seq + 1) this.corrupt(line, `record seq ${parsed.data.seq} follows seq ${this.seq} (expected ${this.seq + 1})`);
    for (const op of parsed.data.ops) applyOp(this.state, op);
    this.seq = parsed.data.seq;
  }

  /** Applies the complete lines of `bytes`; returns how many bytes trail the last newline. */
  private consume(bytes: Buffer): number {
    let start = 0;
    for (;;) {
      const newline = bytes.indexOf(0x0a, start);
      if (newline === -1) break;
      this.applyLine(bytes.subarray(start, newline).toString('utf8'), this.lines + 1);
      this.lines += 1;
      this.offset += newline + 1 - start;
      start = newline + 1;
    }
    return bytes.length - start;
  }

  private readTail(): Buffer | undefined {
    const fd = openRegularFile(this.file);
    if (fd === undefined) return this.offset === 0 ? Buffer.alloc(0) : undefined;
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) return undefined; // shrunk or replaced: replay from the start
      const bytes = Buffer.alloc(size - this.offset);
      let read = 0;
      while (read < bytes.length) {
        const n = readSync(fd, bytes, read, bytes.length - read, this.offset + read);
        if (n === 0) break;
        read += n;
      }
      return bytes.subarray(0, read);
    } finally {
      closeSync(fd);
    }
  }

  /** Applies lines appended since the last look; with `repair`, cuts off a torn tail (writers hold the lock). */
  catchUp(repair: boolean): void {
    const bytes = this.readTail();
    if (bytes === undefined) {
      this.reset();
      this.catchUp(repair);
      return;
    }
    const torn = this.consume(bytes);
    if (repair && (torn > 0 || this.lines === 0)) this.repairTail(torn);
  }

  private reset(): void {
    this.state = emptyState();
    this.offset = 0;
    this.lines = 0;
    this.seq = 0;
  }

  private repairTail(torn: number): void {
    if (torn > 0) truncateSync(this.file, this.offset);
    if (this.lines === 0) {
      this.write(headerLine());
      this.lines = 1;
    }
    if (torn > 0) {
      this.appendChange({ seq: this.seq + 1, change: 'repair', ops: [], note: `cut ${torn} bytes of an unfinished write after line ${this.lines}` });
    }
  }

  private write(text: string): void {
    if (this.fd === undefined) this.fd = openRegular(this.file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o644)!;
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written);
    fsyncSync(this.fd);
    this.offset += bytes.length;
  }

  private appendChange(change: JsonlChange): void {
    this.write(`${JSON.stringify(change)}\n`);
    this.lines += 1;
    this.seq = change.seq;
  }

  refresh(): void {
    this.catchUp(false);
  }

  transaction<T>(change: string, fn: () => T): T {
    if (this.readonly) throw kernelError('RTC_ERR_LEDGER_INPUT', 'the ledger was opened read-only', { internal: true });
    if (this.pending !== undefined) throw kernelError('RTC_ERR_LEDGER_INPUT', 'nested ledger transaction', { internal: true });
    return withFileLock(`${this.file}.lock`, this.displayName, () => {
      this.catchUp(true);
      this.pending = [];
      try {
        const result = fn();
        if (this.pending.length > 0) this.appendChange({ seq: this.seq + 1, change, ops: this.pending });
        return result;
      } catch (error) {
        // Writes were applied to memory as they were made; undo them by replaying the file.
        const wrote = this.pending.length > 0;
        this.pending = undefined;
        if (wrote) {
          this.reset();
          this.catchUp(true);
        }
        throw error;
      } finally {
        this.pending = undefined;
      }
    });
  }

  private record(op: JsonlOp): void {
    if (this.pending === undefined) throw kernelError('RTC_ERR_LEDGER_INPUT', 'a ledger write outside a transaction', { internal: true });
    this.pending.push(clone(op));
    applyOp(this.state, clone(op));
  }

  counter(name: CounterName): number {
    return this.state.counters.get(name) ?? 0;
  }

  task(id: string): TaskRow | undefined {
    const row = this.state.tasks.get(id);
    return row && clone(row);
  }

  tasks(): TaskRow[] {
    return [...this.state.tasks.values()].map(clone).sort((a, b) => idNumber(a.id) - idNumber(b.id));
  }

  history(taskId: string): HistoryEntry[] {
    return clone(this.state.history.get(taskId) ?? []);
  }

  lease(resource: string): Lease | undefined {
    const lease = this.state.leases.get(resource);
    return lease && clone(lease);
  }

  leases(): Lease[] {
    return [...this.state.leases.values()].map(clone);
  }

  leaseEvents(): LeaseEvent[] {
    return clone(this.state.leaseEvents);
  }

  checkpoints(taskId?: string): Checkpoint[] {
    return clone(this.state.checkpoints.filter((c) => taskId === undefined || c.taskId === taskId)).sort(
      (a, b) => idNumber(a.taskId) - idNumber(b.taskId) || a.seq - b.seq,
    );
  }

  surprise(id: string): Surprise | undefined {
    const s = this.state.surprises.get(id);
    return s && clone(s);
  }

  surprises(): Surprise[] {
    return [...this.state.surprises.values()].map(clone).sort((a, b) => idNumber(a.id) - idNumber(b.id));
  }

  setCounter(name: CounterName, value: number): void {
    this.record({ op: 'counter', name, value });
  }

  putTask(row: TaskRow): void {
    this.record({ op: 'task', row });
  }

  addHistory(taskId: string, entry: HistoryEntry): void {
    this.record({ op: 'history', taskId, entry });
  }

  putLease(lease: Lease): void {
    this.record({ op: 'lease', lease });
  }

  deleteLease(resource: string): void {
    this.record({ op: 'lease-delete', resource });
  }

  addLeaseEvent(event: LeaseEvent): void {
    this.record({ op: 'lease-event', event });
  }

  addCheckpoint(checkpoint: Checkpoint): void {
    this.record({ op: 'checkpoint', checkpoint });
  }

  putSurprise(surprise: Surprise): void {
    this.record({ op: 'surprise', surprise });
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function openJsonlRepo(file: string, options: RepoOpenOptions): LedgerRepo {
  const { displayName } = options;
  const readonly = options.readonly ?? false;
  const format = assertFormat(file, displayName, 'jsonl-fs');
  if (readonly && format !== 'jsonl-fs') {
    throw kernelError('RTC_ERR_LEDGER_NOT_FOUND', `${displayName}: no jsonl-fs ledger to read`, { details: { file: displayName } });
  }
  const repo = new JsonlRepo(file, displayName, readonly);
  // Replay before writing anything: a newer schema or a bad line is refused with the file untouched.
  if (format === 'jsonl-fs') repo.catchUp(false);
  if (readonly) return repo;
  try {
    withFileLock(`${file}.lock`, displayName, () => repo.catchUp(true));
    if (format === 'missing') fsyncDir(path.dirname(file));
  } catch (error) {
    repo.close();
    if (isKernelError(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw kernelError('RTC_ERR_LEDGER_CORRUPT', `${displayName}: cannot open for writing: ${reason}`, { details: { file: displayName }, cause: error });
  }
  return repo;
}
