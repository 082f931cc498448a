/**
 * The storage bindings as a persistence (or ledger) plugin sees them, typed. Every call
 * names the session token the kernel passed as the first argument of the export being run;
 * the kernel checks it, and the persona folder or rows it stands for, on every call.
 * Refusals arrive as Errors carrying the kernel's code as data (`error.code`,
 * `RTC_ERR_PERSISTENCE_...`; codeOf below); a plugin passes them on by rethrowing.
 *
 * See features/persistence/storage/*-bindings.ts for what each op does and refuses.
 */
declare const Runtimectl: {
  storage: {
    sync<T>(op: string, args: Record<string, unknown>): T;
    async<T>(op: string, args: Record<string, unknown>): Promise<T>;
  };
};

export type Token = string;
export type SqlValue = string | number | boolean | null;
export type Row = Record<string, unknown>;

const sync = <T>(op: string, args: Record<string, unknown>): T => Runtimectl.storage.sync<T>(op, args);
const async = <T>(op: string, args: Record<string, unknown>): Promise<T> => Runtimectl.storage.async<T>(op, args);

/** The most a read answers at once (features/persistence/storage/file-bindings.ts MAX_READ_BYTES). */
const READ_RANGE = 16 * 1024 * 1024;

export const files = {
  stat: (s: Token, path: string) => sync<{ exists: boolean; size: number }>('storage.files.stat', { s, path }),
  read: (s: Token, path: string, range: { offset?: number; length?: number; whole_lines?: boolean; max_bytes?: number } = {}) =>
    sync<{ text: string | null; size: number; end: number }>('storage.files.read', { s, path, ...range }),
  /**
   * The whole file's text, or undefined when there is none (read in ranges when long); a file
   * over `maxBytes`, or one that is not a regular file, is refused by the binding (RTC_ERR_FS_ACCESS).
   */
  readText(s: Token, path: string, maxBytes?: number): string | undefined {
    const first = files.read(s, path, { length: READ_RANGE, ...(maxBytes === undefined ? {} : { max_bytes: maxBytes }) });
    if (first.text === null) return undefined;
    if (first.end >= first.size) return first.text;
    const parts = [first.text];
    let offset = first.end;
    while (offset < first.size) {
      const next = files.read(s, path, { offset, length: READ_RANGE });
      if (next.text === null || next.end === offset) break;
      parts.push(next.text);
      offset = next.end;
    }
    return parts.join('');
  },
  list: (s: Token, dir: string) => sync<{ names: string[] }>('storage.files.list', { s, dir }).names,
  append: (s: Token, path: string, data: string) => sync<{ size: number }>('storage.files.append', { s, path, data }),
  replace: (s: Token, path: string, data: string, directorySync: 'always' | 'when-new' = 'always') => sync<null>('storage.files.replace', { s, path, data, directory_sync: directorySync }),
  replaceAsync: (s: Token, path: string, data: string, directorySync: 'always' | 'when-new' = 'always') =>
    async<null>('storage.files.replaceAsync', { s, path, data, directory_sync: directorySync }),
  create: (s: Token, path: string, data: string) => sync<{ created: boolean }>('storage.files.create', { s, path, data }).created,
  remove: (s: Token, path: string) => sync<{ removed: boolean }>('storage.files.remove', { s, path }).removed,
  truncate: (s: Token, path: string, size: number) => sync<null>('storage.files.truncate', { s, path, size }),
  /** Appends only while the file is `expectSize` bytes long (under its write lock); `cutTo` first shortens it. */
  appendIfSize: (s: Token, path: string, expectSize: number, data: string, cutTo?: number) =>
    sync<{ appended: boolean; size: number }>('storage.files.appendIfSize', { s, path, expect_size: expectSize, data, ...(cutTo === undefined ? {} : { cut_to: cutTo }) }),
  events: {
    open: (s: Token, path: string) => sync<{ last_seq: number; repaired: boolean }>('storage.files.events.open', { s, path }),
    append: (s: Token, path: string, batch: number) => async<{ stored: number }>('storage.files.events.append', { s, path, batch }),
    read: (s: Token, path: string, handle: number) => sync<null>('storage.files.events.read', { s, path, handle }),
    import: (s: Token, path: string, batch: number) => async<{ stored: number }>('storage.files.events.import', { s, path, batch }),
  },
};

export interface RunResult {
  changes: number;
  last_insert_rowid: number;
}

export const sqlite = {
  exists: (s: Token, db: string) => sync<{ exists: boolean }>('storage.sqlite.exists', { s, db }).exists,
  query: <T extends Row = Row>(s: Token, db: string, sql: string, params: SqlValue[] = []) => sync<{ rows: T[] }>('storage.sqlite.query', { s, db, sql, params }).rows,
  run: (s: Token, db: string, sql: string, params: SqlValue[] = []) => sync<RunResult | { rows: Row[] }>('storage.sqlite.run', { s, db, sql, params }),
  /** Statements in one IMMEDIATE transaction: all of them or none. */
  batch: (s: Token, db: string, statements: { sql: string; params?: SqlValue[] }[]) =>
    sync<{ results: (RunResult | { rows: Row[] })[] }>('storage.sqlite.batch', { s, db, statements: statements.map((st) => ({ sql: st.sql, params: st.params ?? [] })) }).results,
  /**
   * As batch, where a statement with `expect_changes` must change exactly that many rows or
   * the whole transaction is rolled back: answers { conflict: index } then.
   */
  batchIf: (s: Token, db: string, statements: { sql: string; params?: SqlValue[]; expect_changes?: number }[]) =>
    sync<{ results: (RunResult | { rows: Row[] })[] } | { conflict: number }>('storage.sqlite.batch', {
      s,
      db,
      statements: statements.map((st) => ({ sql: st.sql, params: st.params ?? [], ...(st.expect_changes === undefined ? {} : { expect_changes: st.expect_changes }) })),
    }),
  events: {
    open: (s: Token, db: string) => sync<{ last_seq: number }>('storage.sqlite.events.open', { s, db }),
    append: (s: Token, db: string, batch: number) => async<{ stored: number }>('storage.sqlite.events.append', { s, db, batch }),
    read: (s: Token, db: string, handle: number) => sync<null>('storage.sqlite.events.read', { s, db, handle }),
    import: (s: Token, db: string, batch: number) => async<{ stored: number }>('storage.sqlite.events.import', { s, db, batch }),
  },
};

/** The kernel code an error carries (a binding's refusal, or a coded error of a plugin), if any. */
export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('RTC_ERR_') ? code : undefined;
}

/** An error carrying a kernel code, as the kernel reports it (one line). */
export function coded(code: string, message: string): Error {
  // The code is data the kernel reads from the error (never parsed out of the message).
  return Object.assign(new Error(message), { code });
}

/** What the kernel passes to appendEvents and importEvents: a batch by reference. */
export interface BatchRef {
  batch: number;
  first_seq: number;
  count: number;
}

export type PgValue = string | number | boolean | null | (string | number | null)[];

/** `storage.postgres`: statements for this session's persona (row-level security holds them to its rows). */
export const postgres = {
  query: <T extends Row = Row>(s: Token, sql: string, params: PgValue[] = []) => sync<{ rows: T[]; rowCount: number }>('storage.postgres.query', { s, sql, params }),
  /** One transaction; a statement with `expect_rows` must touch that many rows or it all rolls back ({ conflict: index }). */
  batch: (s: Token, statements: { sql: string; params?: PgValue[]; expect_rows?: number }[]) =>
    sync<{ results: { rows: Row[]; rowCount: number }[] } | { conflict: number }>('storage.postgres.batch', {
      s,
      statements: statements.map((st) => ({ sql: st.sql, params: st.params ?? [], ...(st.expect_rows === undefined ? {} : { expect_rows: st.expect_rows }) })),
    }),
  /** The plugin's versioned migrations, run once per database (newer than known: refused). */
  migrate: (s: Token, migrations: { version: number; statements: string[] }[]) => sync<{ from: number; to: number }>('storage.postgres.migrate', { s, migrations }),
  events: {
    open: (s: Token) => sync<{ last_seq: number }>('storage.postgres.events.open', { s }),
    append: (s: Token, batch: number) => async<{ stored: number }>('storage.postgres.events.append', { s, batch }),
    read: (s: Token, handle: number) => sync<null>('storage.postgres.events.read', { s, handle }),
    import: (s: Token, batch: number) => async<{ stored: number }>('storage.postgres.events.import', { s, batch }),
  },
};
