/**
 * What kind of statement a persistence plugin may send through `storage.sqlite`.
 *
 * This is not the security boundary. The boundary is the file: the plugin's connection is
 * opened on the plugin's own database and nothing else, the kernel's tables live in another
 * file (logs/events.db, sqlite-events-db.ts) that no plugin connection ever opens, and the
 * connection runs in SQLite's defensive mode with trusted_schema off and extension loading
 * off (better-sqlite3's defaults, checked by the tests). What a statement may do inside the
 * plugin's own file is the plugin's business.
 *
 * What is refused here is the few statements that change the *connection* rather than the
 * data, because they would take it out of that one file or out of its settings: ATTACH and
 * DETACH (another file), VACUUM (VACUUM INTO writes a file anywhere), PRAGMA (some take
 * effect while the statement is compiled, before any check could look at its program: query_only,
 * trusted_schema, journal and sync settings, process-wide heap limits), EXPLAIN, and
 * transaction control (the binding owns transactions: batch is one IMMEDIATE transaction).
 * better-sqlite3 refuses a text of more than one statement, so the first keyword (after
 * whitespace and comments, as SQLite's own tokenizer skips them) is the statement's kind. The
 * rule is an allow-list of kinds: a first token that is not one of them is refused.
 */
import { kernelError } from '../../../kernel/errors.ts';

const ALLOWED = new Set(['select', 'insert', 'update', 'delete', 'replace', 'with', 'values', 'create', 'alter', 'drop']);

function refuse(why: string): never {
  throw kernelError('RTC_ERR_PERSISTENCE_STATEMENT', `sqlite statement refused: ${why}`, { details: { dialect: 'sqlite' } });
}

/** The statement's first keyword, lower case, after SQLite's whitespace and comments; undefined when it starts with anything else. */
export function firstKeyword(sql: string): string | undefined {
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\f' || c === '\r') i += 1;
    else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i + 2);
      i = end === -1 ? n : end + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? n : end + 2;
    } else break;
  }
  // SQLite reads a keyword as an identifier: letters, digits, '_', '$' and any non-ASCII character.
  const word = /^[A-Za-z][A-Za-z0-9_$\u0080-\uffff]*/.exec(sql.slice(i))?.[0];
  return word?.toLowerCase();
}

/** Throws RTC_ERR_PERSISTENCE_STATEMENT unless `sql` is one data or table statement. */
export function checkSqliteStatement(sql: string): void {
  if (typeof sql !== 'string' || sql.trim() === '') refuse('an empty statement');
  if (sql.length > 1024 * 1024) refuse(`a statement of ${sql.length} characters (at most 1048576)`);
  const first = firstKeyword(sql);
  if (first === undefined || !ALLOWED.has(first)) {
    refuse(`"${first ?? sql.trim().slice(0, 12)}" statements are not allowed: only SELECT, INSERT, UPDATE, DELETE, REPLACE, WITH, VALUES, CREATE, ALTER and DROP (no PRAGMA, ATTACH, DETACH, VACUUM, EXPLAIN or transaction control: the binding owns the connection)`);
  }
}
