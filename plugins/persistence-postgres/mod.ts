/**
 * The `postgres` persistence backend: a persona's state in a shared PostgreSQL database, so a
 * fleet of kernels on several machines keeps every persona in one store the operator already
 * runs. Events (the kernel's `runtimectl_kernel.events`, same envelope and hash chain as the other
 * backends), brain memory, proposal records, the ledger, and the replay trace with its blobs.
 *
 * Runs in an isolate (sandbox profile `persistence`) and reaches the database only through
 * `storage.postgres`: parameterised statements the kernel runs on a connection logged in as
 * the persona's own role (this plugin never sees the DSN, a password or a role name), which
 * may touch only the plugins' tables, and only the persona's rows of them (row-level security
 * on the login: `runtimectl_api.persona()` names the persona; the kernel's tables are in a
 * schema this role cannot even look into). Its tables come from versioned migrations
 * (schema.ts) run at open; a database migrated by a newer runtimectl is refused untouched.
 * One writer per persona is the kernel's lease (taken when the events open for appends).
 */
import { postgres, type BatchRef, type Token } from '../persistence-shared/storage.ts';
import { BRAIN_KEY, LONG_TERM_KEY, MIGRATIONS } from './schema.ts';

export function describe(_s: Token) {
  return { name: 'postgres', events: '', proposals: '', ledger: 'postgres', trace: true };
}

/** Migrations first (a reader only checks the version): a newer database is refused before anything. */
export function open(s: Token, _o: { persona_id: string; readonly: boolean }): void {
  postgres.migrate(s, MIGRATIONS);
}

export function close(_s: Token): void {}

export function openEvents(s: Token): void {
  postgres.events.open(s);
}

export async function appendEvents(s: Token, ref: BatchRef): Promise<void> {
  await postgres.events.append(s, ref.batch);
}

export function readEvents(s: Token, r: { handle: number }): void {
  postgres.events.read(s, r.handle);
}

export async function importEvents(s: Token, ref: BatchRef): Promise<void> {
  await postgres.events.import(s, ref.batch);
}

function memory(s: Token, name: string): string | undefined {
  return postgres.query<{ content: string }>(s, 'SELECT content FROM runtimectl.memory WHERE name = $1', [name]).rows[0]?.content;
}

export function readBrain(s: Token): string | null {
  return memory(s, BRAIN_KEY) ?? null;
}

export function writeBrain(s: Token, text: string): void {
  postgres.batch(s, [
    {
      sql: "INSERT INTO runtimectl.memory (persona, name, content) VALUES (runtimectl_api.persona(), $1, $2) ON CONFLICT (persona, name) DO UPDATE SET content = excluded.content",
      params: [BRAIN_KEY, text],
    },
  ]);
}

export async function writeBrainAsync(s: Token, text: string): Promise<void> {
  writeBrain(s, text);
}

export function readLongTerm(s: Token): string {
  return memory(s, LONG_TERM_KEY) ?? '';
}

export function appendLongTerm(s: Token, text: string): void {
  postgres.batch(s, [
    {
      sql: "INSERT INTO runtimectl.memory (persona, name, content) VALUES (runtimectl_api.persona(), $1, $2) ON CONFLICT (persona, name) DO UPDATE SET content = runtimectl.memory.content || excluded.content",
      params: [LONG_TERM_KEY, text],
    },
  ]);
}

export function memoryIsEmpty(s: Token): boolean {
  return postgres.query(s, "SELECT 1 FROM runtimectl.memory WHERE name = $1 OR (name = $2 AND content <> '') LIMIT 1", [BRAIN_KEY, LONG_TERM_KEY]).rowCount === 0;
}

export function appendProposals(s: Token, lines: string[]): void {
  postgres.batch(s, [
    {
      sql: `INSERT INTO runtimectl.proposals (persona, seq, line)
            SELECT runtimectl_api.persona(), COALESCE((SELECT max(seq) FROM runtimectl.proposals), 0) + u.ord, u.line
            FROM unnest($1::text[]) WITH ORDINALITY AS u(line, ord)`,
      params: [lines],
    },
  ]);
}

export function proposalLines(s: Token): string[] {
  return postgres.query<{ line: string }>(s, 'SELECT line FROM runtimectl.proposals ORDER BY seq').rows.map((r) => r.line);
}

export function proposalsIsEmpty(s: Token): boolean {
  return postgres.query(s, 'SELECT 1 FROM runtimectl.proposals LIMIT 1').rowCount === 0;
}

/** The replay trace: one record line a row, in order. */
export function traceAppend(s: Token, line: string): void {
  postgres.batch(s, [
    {
      sql: "INSERT INTO runtimectl.trace_records (persona, seq, line) SELECT runtimectl_api.persona(), COALESCE((SELECT max(seq) FROM runtimectl.trace_records), 0) + 1, $1",
      params: [line],
    },
  ]);
}

export function traceLines(s: Token): string[] {
  return postgres.query<{ line: string }>(s, 'SELECT line FROM runtimectl.trace_records ORDER BY seq').rows.map((r) => r.line);
}

/** Content-addressed: storing the same digest twice is a no-op (the kernel checks digests on the way out). */
export function blobPut(s: Token, blob: { digest: string; base64: string }): void {
  postgres.batch(s, [
    { sql: "INSERT INTO runtimectl.blobs (persona, digest, content) VALUES (runtimectl_api.persona(), $1, $2) ON CONFLICT DO NOTHING", params: [blob.digest, blob.base64] },
  ]);
}

export function blobGet(s: Token, digest: string): string | null {
  return postgres.query<{ content: string }>(s, 'SELECT content FROM runtimectl.blobs WHERE digest = $1', [digest]).rows[0]?.content ?? null;
}

export { ledgerLoad, ledgerCommit } from './ledger.ts';
