/**
 * One interface for where a persona's durable state lives: its event log, its local task
 * ledger, its brain memory and its proposal records. Implementations are plugins
 * (`plugins/persistence-jsonl-fs`, the embedded default, `plugins/persistence-sqlite`), each
 * run in an isolated-vm isolate under the `persistence` sandbox profile: no Deno permission,
 * storage only through the storage bindings its manifest declares (kernel/persistence), each
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
import type { AppendResult, EventLogStartup } from '../events/event-log.ts';
import type { EventEnvelope } from '../events/envelope.ts';
import type { TraceStorage } from '../replay/trace-store.ts';
import type { LedgerBackend } from '../../features/ledger/repo.ts';
import type { OpenedLedger } from '../../features/ledger/open.ts';
import type { LedgerExport } from '../../features/ledger/records.ts';
import type { LedgerConsistencyProblem } from '../../features/ledger/consistency.ts';
import type { AcquireWriterLock } from '../storage/writer-lock.ts';

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
  open(): Promise<EventLogStartup>;
  /** Group-committed: resolves once the event is durable (its batch synced). */
  append(type: string, payload: Record<string, unknown>): Promise<AppendResult>;
  /** Resolves when everything appended so far is durable. */
  flush(): Promise<void>;
  /** The stored events in order; throws the first problem as a KernelError. */
  read(): Iterable<EventEnvelope>;
  /** Every problem in the stored chain (never writes). */
  verify(): EventChainReport;
  /** True when no event is stored. */
  isEmpty(): boolean;
  /**
   * Copies events verbatim (same seq, prev, hash, at; no redaction, no re-hashing) into an
   * empty store, durably. Refused when the store holds events or was opened for appends.
   */
  importEvents(events: Iterable<EventEnvelope>): Promise<number>;
}

/** The persona's local task ledger, through the features/ledger backend of this format. */
export interface LedgerAccess {
  readonly format: LedgerBackend;
  /** Absolute path of the ledger file (from the ledger's config.yaml), or undefined with no ledger. */
  file(): string | undefined;
  /** Opens (bootstrapping when writing) the ledger in this backend's format. */
  open(options?: { readonly?: boolean }): OpenedLedger;
  /** The whole ledger as a backend-neutral document; undefined when the persona has none. */
  exportDoc(): LedgerExport | undefined;
  /** Imports into an empty ledger of this format (created if need be). */
  importDoc(doc: LedgerExport): void;
  check(): LedgerConsistencyProblem[];
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
  readonly ledger: LedgerAccess;
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
