/**
 * The `sqlite` backend: a persona's brain memory and proposal records in one database,
 * `<persona>/persistence.db` (schema.ts), WAL with synchronous=FULL; its ledger in the sqlite
 * ledger format at the ledger's own path; its events in the kernel's own database beside it,
 * `logs/events.db`.
 *
 * Runs in an isolate (sandbox profile `persistence`) and reaches its databases only through
 * `storage.sqlite`: parameterised statements on its own database files. The events are the
 * kernel's: this plugin names the placement (its persistence.db), and the kernel's events
 * binding creates, appends to (one IMMEDIATE transaction per group-commit batch, whose commit
 * syncs the WAL before any event of it is acknowledged) and verifies logs/events.db, a file no
 * connection of this plugin can open.
 */
import { coded, sqlite, type BatchRef, type Token } from '../persistence-shared/storage.ts';
import { BRAIN_KEY, checkMeta, createSchema, DB_FILE, LONG_TERM_KEY, upgradeSchema } from './schema.ts';

/** Per persona (session): whose database it is, and whether its schema is known to be there. */
const sessions = new Map<Token, { personaId: string; ready: boolean }>();

function session(s: Token) {
  const found = sessions.get(s);
  if (!found) throw coded('RTC_ERR_PERSISTENCE_BACKEND', 'the sqlite backend was not opened for this session');
  return found;
}

/** The database with its schema, created on the first write. */
function writable(s: Token): void {
  const state = session(s);
  if (state.ready) return;
  if (!checkMeta(s, state.personaId)) createSchema(s, state.personaId);
  else upgradeSchema(s);
  state.ready = true;
}

/** Reads see nothing in a database that does not exist or was never written. */
function readable(s: Token): boolean {
  const state = session(s);
  if (state.ready) return true;
  return checkMeta(s, state.personaId);
}

export function describe(_s: Token) {
  return { name: 'sqlite', events: 'logs/events.db', proposals: `${DB_FILE}#proposals`, ledger: 'sqlite' };
}

/** The meta check runs first, through the binding's read-only handle: a newer or foreign database is refused untouched. */
export function open(s: Token, o: { persona_id: string; readonly: boolean }): void {
  sessions.set(s, { personaId: o.persona_id, ready: false });
  try {
    checkMeta(s, o.persona_id);
  } catch (error) {
    sessions.delete(s);
    throw error;
  }
}

export function close(s: Token): void {
  sessions.delete(s);
}

export function openEvents(s: Token): void {
  writable(s);
  sqlite.events.open(s, DB_FILE);
}

export async function appendEvents(s: Token, ref: BatchRef): Promise<void> {
  await sqlite.events.append(s, DB_FILE, ref.batch);
}

export function readEvents(s: Token, r: { handle: number }): void {
  readable(s);
  sqlite.events.read(s, DB_FILE, r.handle);
}

export async function importEvents(s: Token, ref: BatchRef): Promise<void> {
  writable(s);
  await sqlite.events.import(s, DB_FILE, ref.batch);
}

function memoryEntry(s: Token, name: string): string | undefined {
  if (!readable(s)) return undefined;
  return sqlite.query<{ content: string }>(s, DB_FILE, 'SELECT content FROM memory WHERE name = ?', [name])[0]?.content;
}

export function readBrain(s: Token): string | null {
  return memoryEntry(s, BRAIN_KEY) ?? null;
}

export function writeBrain(s: Token, text: string): void {
  writable(s);
  sqlite.batch(s, DB_FILE, [{ sql: 'INSERT OR REPLACE INTO memory (name, content) VALUES (?, ?)', params: [BRAIN_KEY, text] }]);
}

export async function writeBrainAsync(s: Token, text: string): Promise<void> {
  writeBrain(s, text);
}

export function readLongTerm(s: Token): string {
  return memoryEntry(s, LONG_TERM_KEY) ?? '';
}

export function appendLongTerm(s: Token, text: string): void {
  writable(s);
  sqlite.batch(s, DB_FILE, [
    { sql: 'INSERT INTO memory (name, content) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET content = content || excluded.content', params: [LONG_TERM_KEY, text] },
  ]);
}

export function memoryIsEmpty(s: Token): boolean {
  if (!readable(s)) return true;
  return sqlite.query(s, DB_FILE, "SELECT 1 FROM memory WHERE name = ? OR (name = ? AND content <> '') LIMIT 1", [BRAIN_KEY, LONG_TERM_KEY]).length === 0;
}

export function appendProposals(s: Token, lines: string[]): void {
  writable(s);
  sqlite.batch(s, DB_FILE, lines.map((line) => ({ sql: 'INSERT INTO proposals (line) VALUES (?)', params: [line] })));
}

export function proposalLines(s: Token): string[] {
  if (!readable(s)) return [];
  return sqlite.query<{ line: string }>(s, DB_FILE, 'SELECT line FROM proposals ORDER BY seq').map((r) => r.line);
}

export function proposalsIsEmpty(s: Token): boolean {
  if (!readable(s)) return true;
  return sqlite.query(s, DB_FILE, 'SELECT 1 FROM proposals LIMIT 1').length === 0;
}

export { ledgerLoad, ledgerCommit } from './ledger.ts';
