/**
 * The layout of a shared Postgres database and its versioned migrations, run at start. Each
 * component (the kernel's own tables: `kernel`; a persistence plugin's: its plugin id) has a
 * version in `runtimectl_kernel.schema_versions`; migrations newer than it run in order, in
 * one transaction that holds the table's SHARE ROW EXCLUSIVE lock (so two kernels starting
 * together migrate once; no advisory lock, which any role could take and hold). A database
 * whose version is newer than this runtimectl knows is refused untouched, with one line.
 *
 * Three schemas, and who may do what in them (pg-roles.ts names the roles):
 *
 *   runtimectl_kernel  the kernel's: `events` (every persona's chain, the envelope's fields as
 *                      columns), `leases` (one writer per persona, pg-lease.ts), `personas`
 *                      (the fleet view), `schema_versions`, `event_segments`, `event_index`,
 *                      `event_rollups`, `history_documents` (the chain's sealed history,
 *                      pg-history.ts) and `logins` (the plugin roles' passwords). Only the
 *                      kernel role has any privilege here: no plugin role may even look up a
 *                      name in it, so the chain is out of every plugin statement's reach by
 *                      privilege, whatever the statement's text.
 *   runtimectl         the plugins' tables. Each component's migrations run as its own role,
 *                      which owns the tables it makes; in the same transaction the kernel's
 *                      statements check the catalog (tables, indexes and sequences in this
 *                      schema only: no function, view, trigger, rule, schema, default
 *                      privilege or large object) and put every table under row-level
 *                      security: one policy, `persona = runtimectl_api.persona()`, the persona
 *                      column defaulting to it, SELECT/INSERT/UPDATE/DELETE (never TRUNCATE,
 *                      which ignores row-level security) granted to the plugins' group role
 *                      and to nobody else.
 *   runtimectl_api     what plugin roles may call, the kernel's SECURITY DEFINER functions:
 *                      `persona()` (the persona of the session's login role: session_user,
 *                      which no plugin statement can change), and, for a component's migration
 *                      role, `migration_version()` and `record_migration(from, to)` (its own
 *                      component's version, under the lock above).
 *
 * Version 3 of the kernel's schema is that layout; versions 1 and 2 kept the kernel's tables
 * in `runtimectl` beside the plugins' and scoped plugin statements by a `runtimectl.persona`
 * setting the kernel set per transaction and a plugin could set too. Migrating to 3 moves the
 * kernel's tables (ALTER TABLE ... SET SCHEMA: no data is rewritten), makes the roles and
 * functions, and puts the plugin tables made before under the new policy (owned by the one
 * plugin component recorded, when there is exactly one).
 */
import { kernelError } from '../../../../kernel/errors.ts';
import type { PgBridge, Statement } from './pg-bridge.ts';
import { ensureLogin, rolePrefix, type Login } from './pg-roles.ts';
import { PERSONA_ID_PATTERN } from '../../../../kernel/ids.ts';

export const PG_KERNEL_TABLES = ['events', 'leases', 'personas', 'schema_versions', 'event_segments', 'event_index', 'event_rollups', 'history_documents'] as const;
export const KERNEL_COMPONENT = 'kernel';

export interface Migration {
  version: number;
  statements: string[];
}

/** The role prefix, in the kernel's SQL (pg-roles.ts rolePrefix in TypeScript). */
const PREFIX_SQL = "'rtc_' || left(md5(current_database()), 10)";

/** The functions plugin roles may call (owned by the kernel role, which reads runtimectl_kernel for them). */
const API_FUNCTIONS = [
  `CREATE OR REPLACE FUNCTION runtimectl_api.persona() RETURNS text LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $rtc$
    SELECT name FROM runtimectl_kernel.logins WHERE role = session_user::text AND kind IN ('persona', 'reader')
  $rtc$`,
  // A migration's statements run one by one through this (as the migration's role: SECURITY
  // INVOKER): a function cannot end the transaction, so none of them can COMMIT the work before
  // the kernel's checks or leave it half done (EXECUTE of COMMIT, ROLLBACK or a chain fails).
  `CREATE OR REPLACE FUNCTION runtimectl_api.migration_exec(statement text) RETURNS void LANGUAGE plpgsql VOLATILE SECURITY INVOKER AS $rtc$
    BEGIN EXECUTE statement; END $rtc$`,
  `CREATE OR REPLACE FUNCTION runtimectl_api.migration_version() RETURNS integer LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog AS $rtc$
    DECLARE c text; v integer;
    BEGIN
      SELECT name INTO c FROM runtimectl_kernel.logins WHERE role = session_user::text AND kind = 'component';
      IF c IS NULL THEN RAISE EXCEPTION 'role % migrates no component', session_user; END IF;
      LOCK TABLE runtimectl_kernel.schema_versions IN SHARE ROW EXCLUSIVE MODE;
      SELECT version INTO v FROM runtimectl_kernel.schema_versions WHERE component = c;
      RETURN COALESCE(v, 0);
    END $rtc$`,
  `CREATE OR REPLACE FUNCTION runtimectl_api.record_migration(from_version integer, to_version integer) RETURNS void LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog AS $rtc$
    DECLARE c text; v integer;
    BEGIN
      SELECT name INTO c FROM runtimectl_kernel.logins WHERE role = session_user::text AND kind = 'component';
      IF c IS NULL THEN RAISE EXCEPTION 'role % migrates no component', session_user; END IF;
      LOCK TABLE runtimectl_kernel.schema_versions IN SHARE ROW EXCLUSIVE MODE;
      SELECT version INTO v FROM runtimectl_kernel.schema_versions WHERE component = c;
      IF COALESCE(v, 0) <> from_version THEN RAISE EXCEPTION 'component % is at version %, not %', c, COALESCE(v, 0), from_version; END IF;
      INSERT INTO runtimectl_kernel.schema_versions (component, version) VALUES (c, to_version)
        ON CONFLICT (component) DO UPDATE SET version = excluded.version, updated_at = now();
    END $rtc$`,
];

/**
 * Puts the plugin tables of runtimectl under the kernel's policy: those the session's role owns
 * (a component's migration), or all (`everyTable`, the kernel's own migration to version 3).
 */
function enforcePersonaRows(everyTable: boolean): string {
  return `DO $rtc$ DECLARE t record; p record; r record; g text := ${PREFIX_SQL} || '_plugins'; rd text := ${PREFIX_SQL} || '_readers';
  BEGIN
    FOR t IN SELECT c.oid, c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace s ON s.oid = c.relnamespace
      WHERE s.nspname = 'runtimectl' AND c.relkind IN ('r', 'p') ${everyTable ? '' : "AND c.relowner = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user)"} LOOP
      IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute WHERE attrelid = t.oid AND attname = 'persona' AND NOT attisdropped AND atttypid = 'pg_catalog.text'::pg_catalog.regtype) THEN
        RAISE EXCEPTION 'runtimectl.% has no persona column of type text: every table a persistence plugin makes is kept per persona', t.relname;
      END IF;
      EXECUTE format('ALTER TABLE runtimectl.%I ENABLE ROW LEVEL SECURITY', t.relname);
      EXECUTE format('ALTER TABLE runtimectl.%I NO FORCE ROW LEVEL SECURITY', t.relname);
      FOR p IN SELECT polname FROM pg_catalog.pg_policy WHERE polrelid = t.oid LOOP
        EXECUTE format('DROP POLICY %I ON runtimectl.%I', p.polname, t.relname);
      END LOOP;
      EXECUTE format('CREATE POLICY persona_rows ON runtimectl.%I USING (persona = runtimectl_api.persona()) WITH CHECK (persona = runtimectl_api.persona())', t.relname);
      EXECUTE format('ALTER TABLE runtimectl.%I ALTER COLUMN persona SET DEFAULT runtimectl_api.persona()', t.relname);
      FOR r IN SELECT DISTINCT a.grantee FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a WHERE c.oid = t.oid AND a.grantee <> c.relowner LOOP
        IF r.grantee = 0 THEN EXECUTE format('REVOKE ALL ON TABLE runtimectl.%I FROM PUBLIC', t.relname);
        ELSE EXECUTE format('REVOKE ALL ON TABLE runtimectl.%I FROM %I', t.relname, (SELECT rolname FROM pg_catalog.pg_roles WHERE oid = r.grantee));
        END IF;
      END LOOP;
      EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE runtimectl.%I TO %I', t.relname, g);
      EXECUTE format('GRANT SELECT ON TABLE runtimectl.%I TO %I', t.relname, rd);
    END LOOP;
    FOR t IN SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace s ON s.oid = c.relnamespace
      WHERE s.nspname = 'runtimectl' AND c.relkind = 'S' ${everyTable ? '' : "AND c.relowner = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user)"} LOOP
      EXECUTE format('REVOKE ALL ON SEQUENCE runtimectl.%I FROM PUBLIC', t.relname);
      EXECUTE format('GRANT USAGE, SELECT, UPDATE ON SEQUENCE runtimectl.%I TO %I', t.relname, g);
      EXECUTE format('GRANT SELECT ON SEQUENCE runtimectl.%I TO %I', t.relname, rd);
    END LOOP;
  END $rtc$`;
}

/**
 * What a component's migration may have made, read from the catalog (not from its text): only
 * tables, their indexes and sequences, in schema runtimectl. Anything else its role owns now
 * (a function or procedure, a view, a trigger, a rule, a schema, default privileges, a large
 * object) fails the migration, which then leaves nothing.
 */
const CATALOG_CHECK = `DO $rtc$ DECLARE me oid := (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user); bad text;
  BEGIN
    SELECT string_agg(x, ', ') INTO bad FROM (
      SELECT 'function ' || p.oid::pg_catalog.regprocedure::text AS x FROM pg_catalog.pg_proc p WHERE p.proowner = me
      UNION ALL SELECT 'relation ' || c.oid::pg_catalog.regclass::text || ' (kind ' || c.relkind::text || ')' FROM pg_catalog.pg_class c WHERE c.relowner = me AND c.relkind NOT IN ('r', 'p', 'i', 'I', 'S', 't')
      UNION ALL SELECT 'relation ' || c.oid::pg_catalog.regclass::text || ' outside schema runtimectl' FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relowner = me AND c.relkind IN ('r', 'p', 'i', 'I', 'S') AND n.nspname NOT IN ('runtimectl', 'pg_toast')
      UNION ALL SELECT 'trigger ' || tg.tgname FROM pg_catalog.pg_trigger tg JOIN pg_catalog.pg_class c ON c.oid = tg.tgrelid WHERE c.relowner = me AND NOT tg.tgisinternal
      UNION ALL SELECT 'rule ' || r.rulename FROM pg_catalog.pg_rewrite r JOIN pg_catalog.pg_class c ON c.oid = r.ev_class WHERE c.relowner = me
      UNION ALL SELECT 'schema ' || n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspowner = me
      UNION ALL SELECT 'default privileges' FROM pg_catalog.pg_default_acl d WHERE d.defaclrole = me
      UNION ALL SELECT 'large object ' || l.oid FROM pg_catalog.pg_largeobject_metadata l WHERE l.lomowner = me
    ) found;
    IF bad IS NOT NULL THEN
      RAISE EXCEPTION 'a persistence plugin''s migration may make only tables (with their indexes and sequences) in schema runtimectl, not: %', bad;
    END IF;
  END $rtc$`;

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
    // The event log's history (features/history-segments, postgres/pg-history.ts): sealed segments, their index and rollups, the checkpoint.
    version: 2,
    statements: [
      'CREATE TABLE IF NOT EXISTS runtimectl.event_segments (persona text NOT NULL, segment integer NOT NULL, data bytea, stub text, PRIMARY KEY (persona, segment))',
      'CREATE TABLE IF NOT EXISTS runtimectl.event_index (persona text NOT NULL, segment integer NOT NULL, line text NOT NULL, PRIMARY KEY (persona, segment))',
      'CREATE TABLE IF NOT EXISTS runtimectl.event_rollups (persona text NOT NULL, segment integer NOT NULL, line text NOT NULL, PRIMARY KEY (persona, segment))',
      'CREATE TABLE IF NOT EXISTS runtimectl.history_documents (persona text NOT NULL, name text NOT NULL, content text NOT NULL, PRIMARY KEY (persona, name))',
    ],
  },
  {
    // Issue 27: the kernel's tables out of every plugin role's reach; plugin statements as their own roles.
    version: 3,
    statements: [
      'CREATE SCHEMA IF NOT EXISTS runtimectl_kernel',
      'REVOKE ALL ON SCHEMA runtimectl_kernel FROM PUBLIC',
      ...PG_KERNEL_TABLES.map((t) => `ALTER TABLE IF EXISTS runtimectl.${t} SET SCHEMA runtimectl_kernel`),
      ...PG_KERNEL_TABLES.map((t) => `REVOKE ALL ON TABLE runtimectl_kernel.${t} FROM PUBLIC`),
      `CREATE TABLE IF NOT EXISTS runtimectl_kernel.logins (
        role text PRIMARY KEY, kind text NOT NULL CHECK (kind IN ('persona', 'reader', 'component', 'nobody')), name text NOT NULL,
        secret text NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), UNIQUE (kind, name))`,
      'REVOKE ALL ON TABLE runtimectl_kernel.logins FROM PUBLIC',
      'REVOKE ALL ON SCHEMA runtimectl FROM PUBLIC',
      'CREATE SCHEMA IF NOT EXISTS runtimectl_api',
      'REVOKE ALL ON SCHEMA runtimectl_api FROM PUBLIC',
      ...API_FUNCTIONS,
      'REVOKE ALL ON FUNCTION runtimectl_api.persona(), runtimectl_api.migration_version(), runtimectl_api.record_migration(integer, integer), runtimectl_api.migration_exec(text) FROM PUBLIC',
      `DO $rtc$ DECLARE g text;
      BEGIN
        FOREACH g IN ARRAY ARRAY[${PREFIX_SQL} || '_plugins', ${PREFIX_SQL} || '_readers'] LOOP
          IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = g) THEN
            EXECUTE format('CREATE ROLE %I NOLOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS', g);
          END IF;
          EXECUTE format('GRANT USAGE ON SCHEMA runtimectl, runtimectl_api TO %I', g);
          EXECUTE format('GRANT EXECUTE ON FUNCTION runtimectl_api.persona() TO %I', g);
        END LOOP;
      END $rtc$`,
      enforcePersonaRows(true),
    ],
  },
];

/** Where schema_versions is: runtimectl_kernel (version 3 on), runtimectl (before), or nowhere yet. */
function versionsTable(bridge: PgBridge): string | undefined {
  const row = bridge.querySync("SELECT to_regclass('runtimectl_kernel.schema_versions') IS NOT NULL AS now, to_regclass('runtimectl.schema_versions') IS NOT NULL AS before").rows[0];
  if (row?.now === true) return 'runtimectl_kernel.schema_versions';
  if (row?.before === true) return 'runtimectl.schema_versions';
  return undefined;
}

const CREATE_BASE = [
  'CREATE SCHEMA IF NOT EXISTS runtimectl',
  'CREATE SCHEMA IF NOT EXISTS runtimectl_kernel',
  'REVOKE ALL ON SCHEMA runtimectl_kernel FROM PUBLIC',
  'CREATE TABLE IF NOT EXISTS runtimectl_kernel.schema_versions (component text PRIMARY KEY, version integer NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())',
];

/** SQLSTATEs of two kernels creating the same schema or table at once: try again. */
const CREATE_RACE = /^(23505|42P06|42P07|40P01)$/;

function currentVersion(bridge: PgBridge, component: string, create: boolean): { version: number; table: string | undefined } {
  let table = versionsTable(bridge);
  if (table === undefined) {
    if (!create) return { version: 0, table };
    try {
      bridge.txSync({ statements: CREATE_BASE.map((sql) => ({ sql })) });
    } catch (error) {
      if (!CREATE_RACE.test(String((error as { details?: { sqlstate?: string } }).details?.sqlstate ?? ''))) throw error;
    }
    table = versionsTable(bridge);
  }
  if (table === undefined) return { version: 0, table };
  const row = bridge.querySync(`SELECT version FROM ${table} WHERE component = $1`, [component]).rows[0];
  return { version: row === undefined ? 0 : Number(row.version), table };
}

function newerError(bridge: PgBridge, component: string, found: number, newest: number): never {
  throw kernelError(
    'RTC_ERR_PERSISTENCE_SCHEMA_NEWER',
    `${bridge.where}: the ${component} schema is version ${found}, newer than the ${newest} this runtimectl supports; upgrade runtimectl (the database was left untouched)`,
    { details: { component, found, supported: newest } },
  );
}

/** Brings the kernel's own schema to the newest version; refuses a database newer than that. Returns the version found and the version now. */
export function migrateKernel(bridge: PgBridge, readonly: boolean): { from: number; to: number } {
  const newest = KERNEL_MIGRATIONS.reduce((m, x) => Math.max(m, x.version), 0);
  for (let attempt = 0; attempt < 5; attempt++) {
    const { version: found, table } = currentVersion(bridge, KERNEL_COMPONENT, !readonly);
    if (found > newest) newerError(bridge, KERNEL_COMPONENT, found, newest);
    if (found === newest) return { from: found, to: found };
    if (readonly) {
      throw kernelError(
        'RTC_ERR_PERSISTENCE_SCHEMA_OLDER',
        `${bridge.where}: the kernel schema is version ${found}; this runtimectl reads version ${newest} (its tables in their own schema, a role per persona), which one writable open makes: start a kernel on it (runtimectl run), then read (the database was left untouched)`,
        { details: { component: KERNEL_COMPONENT, found, supported: newest } },
      );
    }
    const pending = KERNEL_MIGRATIONS.filter((m) => m.version > found).sort((a, b) => a.version - b.version);
    const statements: Statement[] = [
      { sql: `LOCK TABLE ${table} IN SHARE ROW EXCLUSIVE MODE` },
      // Nobody migrated since the look above (else decide again).
      { sql: `SELECT COALESCE((SELECT version FROM ${table} WHERE component = $1), 0)`, params: [KERNEL_COMPONENT], expect: { firstValue: found } },
      ...pending.flatMap((m) => m.statements.map((sql) => ({ sql }))),
      {
        sql: 'INSERT INTO runtimectl_kernel.schema_versions (component, version) VALUES ($1, $2) ON CONFLICT (component) DO UPDATE SET version = excluded.version, updated_at = now()',
        params: [KERNEL_COMPONENT, newest],
      },
    ];
    const answer = bridge.txSync({ statements });
    if ('results' in answer) return { from: found, to: newest };
  }
  throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${bridge.where}: the kernel schema kept changing while this kernel migrated it`, { details: { component: KERNEL_COMPONENT } });
}

/**
 * Brings plugin `component` to the newest of `migrations`, run as the component's own login
 * role (pg-roles.ts) on its own connection: the version read and recorded under the lock, the
 * plugin's statements, the catalog check and the row-level security, all in one transaction.
 * A database newer than that is refused; a read-only session only checks the version.
 */
export function migrateComponent(bridge: PgBridge, component: string, migrations: Migration[], readonly: boolean): { from: number; to: number } {
  const newest = migrations.reduce((m, x) => Math.max(m, x.version), 0);
  for (let attempt = 0; attempt < 5; attempt++) {
    const { version: found } = currentVersion(bridge, component, false);
    if (found > newest) newerError(bridge, component, found, newest);
    if (found === newest || readonly) return { from: found, to: found };
    const login = componentLogin(bridge, component);
    const pending = migrations.filter((m) => m.version > found).sort((a, b) => a.version - b.version);
    const statements: Statement[] = [
      // The version under the lock: nobody migrated since the look above (else decide again).
      { sql: 'SELECT runtimectl_api.migration_version()', expect: { firstValue: found } },
      // Each of the plugin's statements through migration_exec: none can end the transaction.
      ...pending.flatMap((m) => m.statements.map((sql) => ({ sql: 'SELECT runtimectl_api.migration_exec($1)', params: [sql] }))),
      // The kernel's statements, after the plugin's: whatever those set for the transaction, the catalog is named in full.
      { sql: "SELECT pg_catalog.set_config('search_path', 'pg_catalog', true)" },
      { sql: CATALOG_CHECK },
      { sql: enforcePersonaRows(false) },
      { sql: 'SELECT runtimectl_api.record_migration($1::integer, $2::integer)', params: [found, newest] },
    ];
    const answer = bridge.txSync({ statements, login: login.role });
    if ('results' in answer) return { from: found, to: newest };
  }
  throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${bridge.where}: the ${component} schema kept changing while this kernel migrated it`, { details: { component } });
}

/**
 * A component's migration role; for a database migrated to version 3 from before, the plugin
 * tables the kernel role still owns go to the one component recorded then (and stay the
 * kernel role's, under the same policy, when several were).
 */
function componentLogin(bridge: PgBridge, component: string): Login {
  const prefix = prefixOf(bridge);
  const login = ensureLogin(bridge, prefix, 'component', component, true)!;
  const others = bridge.querySync("SELECT count(*)::int AS n FROM runtimectl_kernel.schema_versions WHERE component NOT IN ('kernel', $1)", [component]).rows[0];
  const orphans = bridge.querySync(
    "SELECT count(*)::int AS n FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = 'runtimectl' AND c.relkind IN ('r', 'p', 'S') AND c.relowner = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user)",
  ).rows[0];
  if (Number(orphans?.n) > 0 && Number(others?.n) === 0) {
    const role = login.role;
    bridge.txSync({
      statements: [
        { sql: `GRANT ${role} TO current_user` },
        {
          sql: `DO $rtc$ DECLARE t record; BEGIN
            FOR t IN SELECT c.relname, c.relkind FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace s ON s.oid = c.relnamespace
              WHERE s.nspname = 'runtimectl' AND c.relkind IN ('r', 'p') AND c.relowner = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user) LOOP
              EXECUTE format('ALTER TABLE runtimectl.%I OWNER TO ${role}', t.relname);
            END LOOP;
          END $rtc$`,
        },
        { sql: `REVOKE ${role} FROM current_user` },
      ],
    });
  }
  return login;
}

/** The personas a database of before version 3 holds: those that wrote events, and those with rows in the plugin tables (still the kernel role's then). */
function personasOfBefore(bridge: PgBridge): string[] {
  const found = new Set(bridge.querySync('SELECT persona FROM runtimectl_kernel.personas').rows.map((r) => String(r.persona)));
  const tables = bridge.querySync(
    "SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace s ON s.oid = c.relnamespace JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attname = 'persona' AND NOT a.attisdropped WHERE s.nspname = 'runtimectl' AND c.relkind IN ('r', 'p') AND c.relowner = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user)",
  ).rows.map((r) => String(r.relname));
  for (const table of tables) {
    if (!/^[a-z_][a-z0-9_]*$/.test(table)) continue;
    for (const r of bridge.querySync(`SELECT DISTINCT persona FROM runtimectl.${table}`).rows) found.add(String(r.persona));
  }
  return [...found].filter((p) => PERSONA_ID_PATTERN.test(p)).sort();
}

function prefixOf(bridge: PgBridge): string {
  if (bridge.rolePrefix === undefined) {
    const db = String(bridge.querySync('SELECT current_database() AS db').rows[0]?.db);
    bridge.rolePrefix = rolePrefix(db);
  }
  return bridge.rolePrefix;
}

/**
 * The kernel's schema, checked (and migrated by a writer) once per database and process, and
 * the role the DSN connects as: refused when it could bypass row-level security (a superuser,
 * BYPASSRLS) or, for a writer, cannot make the plugins' roles (no CREATEROLE).
 */
export function prepareKernelSchema(bridge: PgBridge, readonly: boolean): void {
  const role = bridge.querySync('SELECT rolname, rolsuper, rolbypassrls, rolcreaterole FROM pg_catalog.pg_roles WHERE rolname = current_user').rows[0];
  if (role && (role.rolsuper === true || role.rolbypassrls === true)) {
    throw kernelError(
      'RTC_ERR_PERSISTENCE_CONFIG',
      `${bridge.where}: the DSN's role is a ${role.rolsuper === true ? 'superuser' : 'role with BYPASSRLS'}, which row-level security does not hold; connect as a plain role with CREATEROLE that owns the runtimectl database`,
      {},
    );
  }
  if (!readonly && role && role.rolcreaterole !== true) {
    throw kernelError(
      'RTC_ERR_PERSISTENCE_CONFIG',
      `${bridge.where}: the DSN's role ${String(role.rolname)} lacks CREATEROLE: the kernel runs every plugin statement as a role of its own making, never as itself; run "ALTER ROLE ${String(role.rolname)} CREATEROLE" as a superuser`,
      {},
    );
  }
  const { from, to } = migrateKernel(bridge, readonly);
  // A database moved to version 3 just now: every persona of before gets its roles (so a reader
  // of one that has not written since sees its rows), and the plugin tables made before go to
  // their component's role (when one component made them).
  if (!readonly && from < 3 && to >= 3) {
    for (const persona of personasOfBefore(bridge)) {
      ensureLogin(bridge, prefixOf(bridge), 'persona', persona, true);
      ensureLogin(bridge, prefixOf(bridge), 'reader', persona, true);
    }
    const components = bridge.querySync("SELECT component FROM runtimectl_kernel.schema_versions WHERE component <> 'kernel'").rows.map((r) => String(r.component));
    if (components.length === 1) componentLogin(bridge, components[0]!);
  }
  prefixOf(bridge);
  if (!readonly && to >= 3) ensureLogin(bridge, prefixOf(bridge), 'nobody', '', true);
}

/**
 * The login a persona's plugin statements run as: its writer role (both its roles are made at
 * its first writable open), its reader role for a read-only session (which may only SELECT),
 * or, for a reader of a persona that never wrote, the reader that sees nothing.
 */
export function personaLogin(bridge: PgBridge, persona: string, readonly: boolean): Login {
  const prefix = prefixOf(bridge);
  if (!readonly) ensureLogin(bridge, prefix, 'reader', persona, true);
  const own = ensureLogin(bridge, prefix, readonly ? 'reader' : 'persona', persona, !readonly);
  if (own) return own;
  const nobody = ensureLogin(bridge, prefix, 'nobody', '', false);
  if (nobody) return nobody;
  throw kernelError('RTC_ERR_PERSISTENCE_SCHEMA_OLDER', `${bridge.where}: no kernel has written this database since it moved to the kernel schema version 3: start a kernel on it (runtimectl run), then read`, {});
}
