/**
 * The `postgres` backend's tables (schema runtimectl, the plugins' schema; the kernel's are in
 * runtimectl_kernel, out of this plugin's reach), one row set per persona: these migrations
 * run as this plugin's own role, and in the same transaction the kernel puts each table under
 * row-level security, so a statement of this plugin sees only the rows of the persona its
 * session is for (the `persona` column defaults to runtimectl_api.persona()).
 *
 *   memory          brain.json and long-term.md, as text
 *   proposals       one row per proposal record, the raw JSON line, in order (seq)
 *   ledger_changes  the ledger as a change log: seq 0 the header, then one committed change
 *                   a row (the jsonl-fs record, byte for byte), per ledger path
 *   trace_records   the replay trace's lines (trace/cycles.jsonl elsewhere)
 *   blobs           content-addressed texts the trace refers to (trace/blobs/ elsewhere)
 */
export const MIGRATIONS = [
  {
    version: 1,
    statements: [
      'CREATE TABLE IF NOT EXISTS runtimectl.memory (persona text NOT NULL, name text NOT NULL, content text NOT NULL, PRIMARY KEY (persona, name))',
      'CREATE TABLE IF NOT EXISTS runtimectl.proposals (persona text NOT NULL, seq bigint NOT NULL, line text NOT NULL, PRIMARY KEY (persona, seq))',
      'CREATE TABLE IF NOT EXISTS runtimectl.ledger_changes (persona text NOT NULL, db text NOT NULL, seq bigint NOT NULL, record text NOT NULL, PRIMARY KEY (persona, db, seq))',
      'CREATE TABLE IF NOT EXISTS runtimectl.trace_records (persona text NOT NULL, seq bigint NOT NULL, line text NOT NULL, PRIMARY KEY (persona, seq))',
      'CREATE TABLE IF NOT EXISTS runtimectl.blobs (persona text NOT NULL, digest text NOT NULL, content text NOT NULL, PRIMARY KEY (persona, digest))',
    ],
  },
];

export const BRAIN_KEY = 'brain.json';
export const LONG_TERM_KEY = 'long-term.md';
