/**
 * Versioned schema migrations in a shared Postgres database, run at start. Each component
 * (the kernel's own tables: `kernel`; a persistence plugin's: its plugin id) has a version in
 * `runtimectl.schema_versions`; migrations newer than it run in order, in one transaction
 * under an advisory lock, so two kernels starting together migrate once. A database whose
 * version is newer than this runtimectl knows is refused untouched, with one line.
 *
 * The kernel's tables (schema `runtimectl`):
 *   events           every persona's chain: (persona, seq) primary key, the envelope's fields
 *                    as columns (payload as its canonical JSON text, so each line is rebuilt
 *                    byte for byte); written only by the kernel's events binding
 *   leases           one writer per persona across machines (pg-lease.ts)
 *   personas         every persona that ever wrote here, for the fleet view
 *   schema_versions  the versions above
 *   event_segments, event_index, event_rollups, history_documents
 *                    (version 2) the chain's sealed segments, their index and rollups, and
 *                    the checkpoint, keyed by persona (pg-history.ts)
 *
 * A plugin's tables are forced under row-level security in the same transaction that creates
 * them: each must have a `persona` column, and a statement sees and writes only the rows of
 * the persona its session is for (runtimectl.persona, set by the kernel per transaction).
 */
import { kernelError } from '../../errors.ts';
import type { PgBridge, Statement } from './pg-bridge.ts';

export const PG_SCHEMA = 'runtimectl';
/** The kernel's relations: no plugin statement may name them (sql-guard.ts). */
export const PG_KERNEL_TABLES = ['events', 'leases', 'personas', 'schema_versions', 'event_segments', 'event_index', 'event_rollups', 'history_documents'] as const;
export const KERNEL_COMPONENT = 'kernel';

export interface Migration {
  version: number;
  statements: string[];
}

export const KERNEL_MIGRATIONS: Migration[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE IF NOT EXISTS runtimectl.events (
        persona text NOT NULL, seq bigint NOT NULL, v integer NOT NULL, type text NOT NULL, payload text NOT NULL,
        prev text NOT NULL, hash text NOT NULL, at text NOT NULL, PRIMARY KEY (persona, seq))`,
      `CREATE TABLE IF NOT EXISTS runtimectl.leases (
        persona text PRIMARY KEY, holder text NOT NULL, info text NOT NULL, acquired_at timestamptz NOT NULL,
        heartbeat_at timestamptz NOT NULL, expires_at timestamptz NOT NULL, previous text)`,
      `CREATE TABLE IF NOT EXISTS runtimectl.personas (
        persona text PRIMARY KEY, backend text NOT NULL, first_seen timestamptz NOT NULL DEFAULT now(), last_seen timestamptz NOT NULL DEFAULT now())`,
    ],
  },
  {
    // The event log's history (kernel/history, postgres/pg-history.ts): sealed segments, their index and rollups, the checkpoint.
    version: 2,
    statements: [
      'CREATE TABLE IF NOT EXISTS runtimectl.event_segments (persona text NOT NULL, segment integer NOT NULL, data bytea, stub text, PRIMARY KEY (persona, segment))',
      'CREATE TABLE IF NOT EXISTS runtimectl.event_index (persona text NOT NULL, segment integer NOT NULL, line text NOT NULL, PRIMARY KEY (persona, segment))',
      'CREATE TABLE IF NOT EXISTS runtimectl.event_rollups (persona text NOT NULL, segment integer NOT NULL, line text NOT NULL, PRIMARY KEY (persona, segment))',
      'CREATE TABLE IF NOT EXISTS runtimectl.history_documents (persona text NOT NULL, name text NOT NULL, content text NOT NULL, PRIMARY KEY (persona, name))',
    ],
  },
];

const LOCK = "SELECT pg_advisory_xact_lock(hashtext('runtimectl.migrations'))";
const BASE = [
  'CREATE SCHEMA IF NOT EXISTS runtimectl',
  'CREATE TABLE IF NOT EXISTS runtimectl.schema_versions (component text PRIMARY KEY, version integer NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())',
];

/** Puts every table of the schema but the kernel's under row-level security by persona (or fails the migration). */
const ENFORCE_PERSONA_ROWS = `DO $rtc$ DECLARE t record; BEGIN
  FOR t IN SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'runtimectl' AND c.relkind IN ('r', 'p') AND c.relname NOT IN (${PG_KERNEL_TABLES.map((t) => `'${t}'`).join(', ')}) AND NOT c.relforcerowsecurity LOOP
    IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = 'runtimectl' AND table_name = t.relname AND column_name = 'persona') THEN
      RAISE EXCEPTION 'runtimectl.% has no persona column: every table a persistence plugin makes is kept per persona', t.relname;
    END IF;
    EXECUTE format('ALTER TABLE runtimectl.%I ENABLE ROW LEVEL SECURITY', t.relname);
    EXECUTE format('ALTER TABLE runtimectl.%I FORCE ROW LEVEL SECURITY', t.relname);
    EXECUTE format('CREATE POLICY persona_rows ON runtimectl.%I USING (persona = current_setting(''runtimectl.persona'', true)) WITH CHECK (persona = current_setting(''runtimectl.persona'', true))', t.relname);
  END LOOP;
END $rtc$`;

function currentVersion(bridge: PgBridge, component: string, create: boolean): number {
  if (!create) {
    // A reader creates nothing: no schema yet is version 0.
    const exists = bridge.querySync("SELECT to_regclass('runtimectl.schema_versions') IS NOT NULL AS present").rows[0]?.present === true;
    if (!exists) return 0;
    const row = bridge.querySync('SELECT version FROM runtimectl.schema_versions WHERE component = $1', [component]).rows[0];
    return row === undefined ? 0 : Number(row.version);
  }
  const answer = bridge.txSync({ statements: [{ sql: LOCK }, ...BASE.map((sql) => ({ sql })), { sql: 'SELECT version FROM runtimectl.schema_versions WHERE component = $1', params: [component] }] });
  if (!('results' in answer)) throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${bridge.where}: reading the schema version failed`, { internal: true });
  const row = answer.results.at(-1)!.rows[0];
  return row === undefined ? 0 : Number(row.version);
}

/**
 * Brings `component` to the newest of `migrations`; refuses a database newer than that.
 * Returns the version found and the version now.
 */
export function migrate(bridge: PgBridge, component: string, migrations: Migration[], options: { enforcePersonaRows?: boolean; readonly?: boolean } = {}): { from: number; to: number } {
  const newest = migrations.reduce((m, x) => Math.max(m, x.version), 0);
  for (let attempt = 0; attempt < 5; attempt++) {
    const found = currentVersion(bridge, component, options.readonly !== true);
    if (found > newest) {
      throw kernelError(
        'RTC_ERR_PERSISTENCE_SCHEMA_NEWER',
        `${bridge.where}: the ${component} schema is version ${found}, newer than the ${newest} this runtimectl supports; upgrade runtimectl (the database was left untouched)`,
        { details: { component, found, supported: newest } },
      );
    }
    if (found === newest || options.readonly) return { from: found, to: found };
    const pending = migrations.filter((m) => m.version > found).sort((a, b) => a.version - b.version);
    const statements: Statement[] = [
      { sql: LOCK },
      // Nobody migrated this component since the look above (else decide again).
      { sql: 'SELECT COALESCE((SELECT version FROM runtimectl.schema_versions WHERE component = $1), 0)', params: [component], expect: { firstValue: found } },
      ...pending.flatMap((m) => m.statements.map((sql) => ({ sql }))),
      ...(options.enforcePersonaRows ? [{ sql: ENFORCE_PERSONA_ROWS }] : []),
      {
        sql: 'INSERT INTO runtimectl.schema_versions (component, version) VALUES ($1, $2) ON CONFLICT (component) DO UPDATE SET version = excluded.version, updated_at = now()',
        params: [component, newest],
      },
    ];
    const answer = bridge.txSync({ statements });
    if ('results' in answer) return { from: found, to: newest };
  }
  throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${bridge.where}: the ${component} schema kept changing while this kernel migrated it`, { details: { component } });
}

/** The kernel's tables, and the check that the DSN's role is held to row-level security. */
export function prepareKernelSchema(bridge: PgBridge, readonly: boolean): void {
  const role = bridge.querySync('SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user').rows[0];
  if (role && (role.rolsuper === true || role.rolbypassrls === true)) {
    throw kernelError(
      'RTC_ERR_PERSISTENCE_CONFIG',
      `${bridge.where}: the DSN's role is a ${role.rolsuper === true ? 'superuser' : 'role with BYPASSRLS'}, which row-level security does not hold to its persona's rows; connect as a plain role that owns the runtimectl database`,
      {},
    );
  }
  migrate(bridge, KERNEL_COMPONENT, KERNEL_MIGRATIONS, { readonly });
}
