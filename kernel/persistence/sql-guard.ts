/**
 * What a persistence plugin may say in SQL through `storage.sqlite` and `storage.postgres`.
 *
 * The kernel owns some relations (the event chain, the writer lease, the kernel's own
 * schema record): a backend plugin must not be able to write them, or it could forge or
 * reorder the chain behind the kernel's back. The kernel writes them itself, through the
 * by-reference event bindings (kernel/persistence/event-bindings.ts). Every other statement a
 * plugin sends is checked here before it is prepared:
 *
 *   - one statement, whose first keyword is a plain data or table statement (SELECT, INSERT,
 *     UPDATE, DELETE, REPLACE, WITH, VALUES, CREATE TABLE/INDEX, ALTER TABLE, DROP
 *     TABLE/INDEX); PRAGMA, ATTACH, VACUUM, transactions, triggers, views, functions, DO,
 *     SET, COPY and the rest are refused, so nothing can act later, elsewhere or as someone else;
 *   - no reserved name anywhere in it (any identifier, quoted or not, in any case), so a
 *     statement cannot read, write, rename, drop or hang a trigger on a kernel relation;
 *   - no function that reaches outside a statement's own data (settings, advisory locks,
 *     server files, extensions, dynamic SQL), and no dollar-quoted body.
 *
 * Statement texts are few and fixed in a plugin, so the verdict is cached by text. SQLite
 * statements are also checked on their compiled program (sqlite-bindings.ts) for writes to
 * a kernel table's pages, in case a tokenizer corner was missed.
 */
import { kernelError } from '../errors.ts';

export type SqlDialect = 'sqlite' | 'postgres';

const ALLOWED_FIRST = new Set(['select', 'insert', 'update', 'delete', 'replace', 'with', 'values', 'create', 'alter', 'drop']);
/** What may follow CREATE / DROP: tables and indexes only (no TRIGGER, VIEW, FUNCTION, RULE, ...). */
const ALLOWED_DDL_OBJECTS = new Set(['table', 'index', 'unique']);

const DENIED_FUNCTIONS: Record<SqlDialect, readonly string[]> = {
  sqlite: ['load_extension', 'readfile', 'writefile', 'edit', 'fts3_tokenizer', 'sqlite_compileoption_get'],
  postgres: [
    'set_config',
    'pg_advisory_lock',
    'pg_advisory_xact_lock',
    'pg_advisory_unlock',
    'pg_advisory_unlock_all',
    'pg_try_advisory_lock',
    'pg_try_advisory_xact_lock',
    'pg_advisory_lock_shared',
    'pg_terminate_backend',
    'pg_cancel_backend',
    'pg_reload_conf',
    'pg_rotate_logfile',
    'pg_read_file',
    'pg_read_binary_file',
    'pg_ls_dir',
    'pg_stat_file',
    'lo_import',
    'lo_export',
    'lo_from_bytea',
    'lo_put',
    'query_to_xml',
    'query_to_xmlschema',
    'query_to_xml_and_xmlschema',
    'cursor_to_xml',
    'dblink',
    'dblink_exec',
    'pg_notify',
  ],
};

export interface SqlToken {
  kind: 'word' | 'quoted' | 'string' | 'number' | 'param' | 'punct';
  /** words and quoted identifiers: lower-cased (ASCII) for comparison */
  text: string;
}

function refuse(dialect: SqlDialect, why: string): never {
  throw kernelError('RTC_ERR_PERSISTENCE_STATEMENT', `${dialect} statement refused: ${why}`, { details: { dialect } });
}

function isWordStart(c: string): boolean {
  return /[A-Za-z_\u0080-\uffff]/.test(c);
}

function isWordPart(c: string): boolean {
  return /[A-Za-z0-9_$\u0080-\uffff]/.test(c);
}

/** The statement's tokens; comments and whitespace dropped. Throws on an unterminated literal. */
export function tokenizeSql(sql: string, dialect: SqlDialect): SqlToken[] {
  const tokens: SqlToken[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    if (/\s/.test(c)) {
      i += 1;
      continue;
    }
    if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? n : end + 1;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      // Postgres nests block comments; SQLite does not. Both end at the matching close here.
      let depth = 1;
      let j = i + 2;
      while (j < n && depth > 0) {
        if (dialect === 'postgres' && sql[j] === '/' && sql[j + 1] === '*') {
          depth += 1;
          j += 2;
        } else if (sql[j] === '*' && sql[j + 1] === '/') {
          depth -= 1;
          j += 2;
        } else j += 1;
      }
      if (depth > 0) refuse(dialect, 'an unterminated comment');
      i = j;
      continue;
    }
    if (c === "'" || ((c === 'e' || c === 'E') && sql[i + 1] === "'" && dialect === 'postgres')) {
      const backslashes = c !== "'";
      let j = backslashes ? i + 2 : i + 1;
      for (;;) {
        if (j >= n) refuse(dialect, 'an unterminated string literal');
        if (backslashes && sql[j] === '\\') {
          j += 2;
          continue;
        }
        if (sql[j] === "'") {
          if (sql[j + 1] === "'") {
            j += 2;
            continue;
          }
          break;
        }
        j += 1;
      }
      tokens.push({ kind: 'string', text: sql.slice(i, j + 1) });
      i = j + 1;
      continue;
    }
    const closeQuote = c === '"' ? '"' : dialect === 'sqlite' && c === '`' ? '`' : dialect === 'sqlite' && c === '[' ? ']' : undefined;
    if (closeQuote !== undefined) {
      let j = i + 1;
      let name = '';
      for (;;) {
        if (j >= n) refuse(dialect, 'an unterminated quoted identifier');
        if (sql[j] === closeQuote) {
          if (closeQuote !== ']' && sql[j + 1] === closeQuote) {
            name += closeQuote;
            j += 2;
            continue;
          }
          break;
        }
        name += sql[j];
        j += 1;
      }
      tokens.push({ kind: 'quoted', text: name.toLowerCase() });
      i = j + 1;
      continue;
    }
    if (c === '$') {
      if (dialect === 'postgres' && /^\$\d+/.test(sql.slice(i))) {
        const m = /^\$\d+/.exec(sql.slice(i))!;
        tokens.push({ kind: 'param', text: m[0] });
        i += m[0].length;
        continue;
      }
      refuse(dialect, 'a dollar-quoted body or a $name parameter (use $1, $2, ... or ?)');
    }
    if (c === '?' && dialect === 'sqlite') {
      let j = i + 1;
      while (j < n && /\d/.test(sql[j]!)) j += 1;
      tokens.push({ kind: 'param', text: sql.slice(i, j) });
      i = j;
      continue;
    }
    if ((c === ':' || c === '@') && dialect === 'sqlite' && isWordStart(sql[i + 1] ?? '')) refuse(dialect, 'named parameters (use ?)');
    if (/\d/.test(c) || (c === '.' && /\d/.test(sql[i + 1] ?? ''))) {
      let j = i;
      while (j < n && /[0-9a-zA-Z_.]/.test(sql[j]!)) j += 1;
      tokens.push({ kind: 'number', text: sql.slice(i, j) });
      i = j;
      continue;
    }
    if (isWordStart(c)) {
      let j = i + 1;
      while (j < n && isWordPart(sql[j]!)) j += 1;
      tokens.push({ kind: 'word', text: sql.slice(i, j).toLowerCase() });
      i = j;
      continue;
    }
    tokens.push({ kind: 'punct', text: c });
    i += 1;
  }
  return tokens;
}

const verdicts = new Map<string, true>();

/**
 * Throws RTC_ERR_PERSISTENCE_STATEMENT when a plugin's statement is not allowed; `reserved`
 * are the kernel's relation names (lower case). A passed verdict is cached by text.
 */
export function checkPluginSql(sql: string, dialect: SqlDialect, reserved: readonly string[]): void {
  const key = `${dialect}\u0000${reserved.join(',')}\u0000${sql}`;
  if (verdicts.has(key)) return;
  if (typeof sql !== 'string' || sql.trim() === '') refuse(dialect, 'an empty statement');
  if (sql.length > 64 * 1024) refuse(dialect, `a statement of ${sql.length} characters (at most 65536)`);
  const tokens = tokenizeSql(sql, dialect);
  const semicolon = tokens.findIndex((t) => t.kind === 'punct' && t.text === ';');
  if (semicolon !== -1 && semicolon !== tokens.length - 1) refuse(dialect, 'more than one statement (send each one on its own)');
  const words = tokens.filter((t) => t.kind === 'word');
  const first = tokens[0];
  if (first === undefined || first.kind !== 'word' || !ALLOWED_FIRST.has(first.text)) {
    refuse(dialect, `"${first?.text ?? ''}" statements are not allowed (only SELECT, INSERT, UPDATE, DELETE, REPLACE, WITH, VALUES, CREATE/ALTER/DROP TABLE and CREATE/DROP INDEX)`);
  }
  if (first.text === 'create' || first.text === 'drop') {
    const object = tokens[1]?.text ?? '';
    if (!ALLOWED_DDL_OBJECTS.has(object) || (object === 'unique' && tokens[2]?.text !== 'index')) {
      refuse(dialect, `${first.text.toUpperCase()} ${object.toUpperCase()} is not allowed (only tables and indexes)`);
    }
  }
  if (first.text === 'alter' && tokens[1]?.text !== 'table') refuse(dialect, `ALTER ${tokens[1]?.text.toUpperCase() ?? ''} is not allowed (only ALTER TABLE)`);
  for (const token of tokens) {
    if ((token.kind === 'word' || token.kind === 'quoted') && reserved.includes(token.text)) {
      refuse(dialect, `it names "${token.text}", which the kernel keeps (the event chain and the writer lease are written only through the kernel's own bindings)`);
    }
  }
  const denied = DENIED_FUNCTIONS[dialect];
  for (const word of words) {
    if (denied.includes(word.text) || (dialect === 'postgres' && (word.text.startsWith('pg_advisory') || word.text.startsWith('dblink') || word.text.startsWith('lo_')))) {
      refuse(dialect, `the function ${word.text} is not available to persistence plugins`);
    }
  }
  if (dialect === 'postgres' && words.some((w) => w.text === 'into') && first.text === 'select') {
    // SELECT ... INTO creates a table from a query: allowed only through CREATE TABLE ... AS.
    refuse(dialect, 'SELECT ... INTO (use CREATE TABLE ... AS)');
  }
  verdicts.set(key, true);
}
