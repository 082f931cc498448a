/**
 * One interface for where a persona's durable state lives: its event log, its local task
 * ledger, its brain memory and its proposal records. Implementations are plugins
 * (`plugins/persistence-jsonl-fs`, the embedded default, `plugins/persistence-sqlite`), each
 * run in an isolated-vm isolate under the `persistence` sandbox profile: no Deno permission,
 * storage only through the storage bindings its manifest declares (features/persistence/storage), each
 * call checked against the persona's own folder.
 *
 * The kernel keeps the hash chain, group commit and verification: events reach a backend by
 * reference (a batch id, a read handle), the kernel writes the bytes it encoded and reads back
 * what it verifies, so no backend can forge, reorder or hide the chain. What a backend plugin
 * exports is BACKEND_EXPORTS in features/persistence/isolated-backend.ts (documented in
 * features/persistence/README.md); this file is the interface the rest of runtimectl uses.
 *
 * Every backend gives byte-identical event JSON and hashes for the same appends (the one
 * encoder in kernel/events does it).
 */
import type { AppendResult, EventLogStartup, OpenSegment, SealOptions, SealOutcome } from '../events/event-log.ts';
import type { PluginRegistry } from '../plugins/registry.ts';
import type { EventEnvelope } from '../events/envelope.ts';
import type { TraceStorage } from './trace-storage.ts';
import type { HistoryStorage } from './history-storage.ts';
import type { HistoryVerifyOptions, HistoryVerifyReport } from './history-verify.ts';

/**
 * What a persistence backend plugin exports (each called in its isolate with the session token
 * first; features/persistence/isolated-backend.ts is the kernel's side, its README the contract).
 */
export const BACKEND_EXPORTS = [
  'describe',
  'open',
  'close',
  'openEvents',
  'appendEvents',
  'readEvents',
  'importEvents',
  'readBrain',
  'writeBrain',
  'writeBrainAsync',
  'readLongTerm',
  'appendLongTerm',
  'memoryIsEmpty',
  'appendProposals',
  'proposalLines',
  'proposalsIsEmpty',
  'ledgerLoad',
  'ledgerCommit',
] as const;

/** Where in a store a problem is: a line of a file, or a row (by seq) of a table. */
export interface StoreProblem {
  /** Absolute path of the file or database at fault. */
  file: string;
  /** 1-based line, for line-based files. */
  line?: number;
  /** Event sequence number, when known. */
  seq?: number;
  code: string;
  what: string;
  severity: 'error' | 'warning';
}

export interface EventChainReport {
  /** The file or database that holds the events. */
  file: string;
  /** False when nothing was ever stored (a persona that never ran on this backend). */
  exists: boolean;
  events: number;
  lastSeq: number;
  lastHash: string;
  problems: StoreProblem[];
  ok: boolean;
}

export interface EventStore {
  /** The file or database that holds the events (absolute). */
  readonly location: string;
  /**
   * Checks the stored chain and refuses a damaged or newer log (left untouched), repairs a
   * torn tail where the format can have one, and appends `reboot` when events were already
   * there. append() calls it on first use; call it first to learn what it found.
   */
  open(options?: EventOpenOptions): Promise<EventLogStartup>;
  /** Group-committed: resolves once the event is durable (its batch synced). */
  append(type: string, payload: Record<string, unknown>): Promise<AppendResult>;
  /** Resolves when everything appended so far is durable. */
  flush(): Promise<void>;
  /** The stored events in order, every segment; throws the first problem as a KernelError. */
  read(): Iterable<EventEnvelope>;
  /**
   * Every problem in the stored chain (never writes): by default every segment is read
   * (`verify --full`); `incremental` re-reads only what changed since `since` (features/history-segments/verify.ts).
   */
  verify(options?: HistoryVerifyOptions): HistoryVerifyReport;
  /** True when no event is stored. */
  isEmpty(): boolean;
  /**
   * Copies events verbatim (same seq, prev, hash, at; no redaction, no re-hashing) into an
   * empty store, durably. Refused when the store holds events or was opened for appends.
   * A `log_segment` record in the stream seals the events before it as the segment its
   * header names, so the copy is segmented as the original was (features/history-segments).
   */
  importEvents(events: Iterable<EventEnvelope>, options?: Pick<EventOpenOptions, 'rollup'>): Promise<number>;
  /**
   * The log's history (features/history-segments): its sealed segments, their index with the rollups,
   * and its checkpoint. Where the bytes go is the backend's; what they mean is the kernel's.
   */
  readonly history: HistoryStorage;
  /**
   * Seals the open segment (its records become a sealed segment; the next one opens with a
   * `log_segment` header recording its digest). Undefined when it holds nothing to seal.
   * Opens the store for appends if it is not open yet.
   */
  seal(options?: SealOptions): Promise<SealOutcome | undefined>;
  /** The open segment: index, first seq, records, bytes, when it started to fill. */
  openSegment(): OpenSegment;
  /** The open segment's events only, checked from its header; throws the first problem. */
  readOpen(): Iterable<EventEnvelope>;
  /** Events with seq > `afterSeq`, reading only the sealed segments that hold them. */
  readAfter(afterSeq: number): Iterable<EventEnvelope>;
}

export interface EventOpenOptions {
  /** Called with every event of the open segment as the open checks it (the loop folds them into its start state). */
  onEvent?: (event: EventEnvelope) => void;
  /** The rollup each sealed segment's index entry carries (features/history). */
  rollup?: (events: EventEnvelope[]) => unknown;
  /**
   * false: this opening is no restart of the persona's loop (a tools session: `tools call`,
   * `mcp serve` on its own records only its tool_call events), so no `reboot` is appended.
   * Default true. A torn tail's `log_repaired` and a seal's completion are appended either way.
   */
  reboot?: boolean;
}

/** Brain memory: `brain.json` (rewritten whole) and `long-term.md` (append-only). */
export interface MemoryStore {
  /** brain.json's text exactly as stored, or undefined when there is none. */
  readBrain(): string | undefined;
  /** Replaces brain.json atomically and durably; the text must be one JSON object. */
  writeBrain(text: string): void;
  /**
   * Optional: writeBrain's durable replace without holding the main thread (done when the
   * promise resolves). The loop uses it while other personas' cycles can use the time.
   */
  writeBrainAsync?(text: string): Promise<void>;
  /** long-term.md's text, '' when there is none. */
  readLongTerm(): string;
  /** Appends to long-term.md durably. */
  appendLongTerm(text: string): void;
  isEmpty(): boolean;
}

/** Proposal records: raw JSON lines, kept in order and byte for byte. */
export interface ProposalStore {
  /** Absolute path of the file or database that holds them. */
  readonly location: string;
  /** Appends one or more lines (each one JSON object, no newline) in one durable write. */
  append(lines: string | readonly string[]): void;
  /** The stored lines, without their newlines; a torn last line is not included. */
  lines(): string[];
  /** The stored records, parsed. */
  read(): unknown[];
  isEmpty(): boolean;
}

export interface PersistenceBackend {
  /** Short name: `jsonl-fs`, `sqlite`. */
  readonly name: string;
  /** The plugin id the backend was loaded from: `persistence.jsonl-fs`. */
  readonly pluginId: string;
  readonly personaId: string;
  readonly personaDir: string;
  readonly readonly: boolean;
  readonly events: EventStore;
  readonly memory: MemoryStore;
  readonly proposals: ProposalStore;
  /**
   * The replay trace's lines and blobs, when this backend keeps them (postgres); absent, they
   * are the files trace/cycles.jsonl and trace/blobs/ in the persona folder.
   */
  readonly trace?: TraceStorage;
  /**
   * Optional: the backend's own one-writer lock for this persona (a lease in a shared
   * store). Without it the kernel takes the file lock in the persona folder
   * (writer-lock.ts); either way a second writer is refused, naming the holder.
   */
  readonly acquireWriterLock?: AcquireWriterLock;
  /** Waits for pending appends, then releases files and databases. */
  close(): Promise<void>;
}

/** How a backend is asked for by name: `jsonl-fs`, `sqlite` (the part of its plugin id after `persistence.`). */
export interface OpenBackendOptions {
  /** Never write: no file or database is created, repaired or appended to. */
  readonly?: boolean;
  /** Clock for event `at` (tests pin it). */
  now?: () => Date;
  /** Defaults to the persona directory's name. */
  personaId?: string;
  /** The plugins of this start (the backend is looked up there); default: a scan of the built-in folder. */
  registry?: PluginRegistry;
  /** A shared database's DSN (the postgres backend); default: RUNTIMECTL_POSTGRES_DSN. */
  dsn?: string;
}

/**
 * What the kernel needs of the persistence feature, handed in by the composition (the kernel
 * imports no backend): open a persona's state in a named backend (undefined: the one its state
 * directory records), and say which backend that is.
 */
export interface PersistenceProvider {
  open(personaDir: string, name: string | undefined, options?: OpenBackendOptions): Promise<PersistenceBackend>;
  /** The backend `<persona>/persistence.yaml` records, or the default when there is none. */
  configured(personaDir: string): string;
  /** The backend the state directory records for the persona, undefined when it records none. */
  recorded(personaDir: string): string | undefined;
  /** Records the persona's backend in its state directory (so tools that read state without the profile find it). */
  record(personaDir: string, name: string): void;
  /** The backend a persona gets when nothing names one. */
  readonly defaultName: string;
}

// The writer lock a backend provides (features/persistence/state/writer-lock.ts is the file lock every other backend gets).
/** Who holds a persona's writer lock: enough to find the process and be sure it is that one. */
export interface WriterHolder {
  pid: number;
  /** start time of the process (ISO), from /proc/<pid>/stat and the boot time */
  started_at: string;
  /** field 22 of /proc/<pid>/stat (clock ticks after boot): with the pid, names one process */
  start_ticks: number | null;
  host: string;
  /** what the holder is doing: `run`, `events repair`, ... */
  purpose: string;
  /** when the lock was taken (ISO) */
  since: string;
}

export interface WriterLock {
  readonly holder: WriterHolder;
  /** Releases the lock (idempotent). The process ending releases it too. */
  release(): void;
}

/** What a backend implements to provide its own writer lock (a lease in a shared store). */
export type AcquireWriterLock = (purpose: string) => Promise<WriterLock>;
