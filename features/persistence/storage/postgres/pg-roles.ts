/**
 * Who a plugin's SQL runs as in a shared Postgres database: never the kernel's role.
 *
 * The kernel connects with the DSN's role (the *kernel role*: it owns the database's
 * runtimectl schemas, and needs CREATEROLE). Every statement a persistence plugin sends runs
 * on a separate connection, logged in as a role the kernel made for the purpose:
 *
 *   rtc_<db>_p_<persona hash>   one LOGIN role per persona, for the plugin's data statements
 *                               (query, batch): a member of rtc_<db>_plugins, which may only
 *                               use schema runtimectl (the plugins' tables: SELECT, INSERT,
 *                               UPDATE, DELETE, no TRUNCATE) and call runtimectl_api.persona()
 *   rtc_<db>_r_<persona hash>   the persona's reader, for a read-only session: a member of
 *                               rtc_<db>_readers, which may only SELECT; a read-only open writes
 *                               nothing by privilege, whatever a statement says (SET
 *                               TRANSACTION READ WRITE, COMMIT and write on)
 *   rtc_<db>_d_<component hash> one LOGIN role per plugin component (a plugin id), for its
 *                               versioned migrations: may create tables in schema runtimectl
 *                               and owns the tables it made; nothing else
 *   rtc_<db>_nobody             a reader with no persona: what a read-only session of a
 *                               persona that never wrote reads as (it sees no rows)
 *
 * (`<db>` is 10 hex of md5(database name): roles are cluster-wide, databases are not.) None
 * of them has any privilege on schema runtimectl_kernel (the chain, leases, history, schema
 * versions and these logins) or is a member of the kernel role, so whatever a plugin's
 * statement says (SET ROLE, RESET ROLE, set_config('role', ...), a DO block, a function it
 * creates, COPY, dblink, pg_read_file, pg_terminate_backend on the kernel's connections, a
 * quoted or U&-escaped name of a kernel table), it is refused by privilege, not by parsing.
 * Row-level security keys on `session_user`, which only a superuser can change: a persona's
 * statements see and write only that persona's rows.
 *
 * Each login's password is 32 random bytes, sent to the server as a SCRAM-SHA-256 verifier
 * (never in clear text, so no server log holds it) and kept, for the other kernels of the
 * fleet, in runtimectl_kernel.logins, which only the kernel role can read. The plugin never
 * sees a password, a DSN or a role name.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { kernelError } from '../../../../kernel/errors.ts';
import type { PgBridge } from './pg-bridge.ts';

export type LoginKind = 'persona' | 'reader' | 'component' | 'nobody';

export interface Login {
  role: string;
  password: string;
}

/** The database's role prefix: `rtc_` and 10 hex of md5(database name) (the kernel's SQL computes the same). */
export function rolePrefix(database: string): string {
  return `rtc_${createHash('md5').update(database).digest('hex').slice(0, 10)}`;
}

export function pluginsRole(prefix: string): string {
  return `${prefix}_plugins`;
}

export function readersRole(prefix: string): string {
  return `${prefix}_readers`;
}

export function nobodyRole(prefix: string): string {
  return `${prefix}_nobody`;
}

export function loginRole(prefix: string, kind: LoginKind, name: string): string {
  if (kind === 'nobody') return nobodyRole(prefix);
  const hash = createHash('sha256').update(`${kind === 'reader' ? 'persona' : kind}\u0000${name}`).digest('hex');
  if (kind === 'persona') return `${prefix}_p_${hash.slice(0, 16)}`;
  if (kind === 'reader') return `${prefix}_r_${hash.slice(0, 16)}`;
  return `${prefix}_d_${hash.slice(0, 12)}`;
}

/** A SCRAM-SHA-256 verifier for `password` (RFC 5802 / 7677, as PostgreSQL stores it). */
export function scramVerifier(password: string, salt = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/** A role name the kernel made (safe to write into a statement as an identifier). */
function checkedRole(role: string): string {
  if (!/^rtc_[0-9a-f]{10}_(plugins|readers|nobody|[pr]_[0-9a-f]{16}|d_[0-9a-f]{12})$/.test(role)) throw kernelError('RTC_ERR_PERSISTENCE_CONFIG', `"${role}" is not a role name this kernel makes`, { internal: true });
  return role;
}

/**
 * The statements that make (or repair) a login role: created with a SCRAM verifier, or given
 * the new one when it exists (a database restored elsewhere, a role an operator dropped and
 * made again), member of `groups` only, no attribute that could reach beyond them.
 */
export function loginStatements(role: string, verifier: string, groups: readonly string[]): string[] {
  const name = checkedRole(role);
  if (!/^SCRAM-SHA-256\$\d+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/.test(verifier)) throw kernelError('RTC_ERR_PERSISTENCE_CONFIG', 'not a SCRAM verifier', { internal: true });
  const attributes = `LOGIN INHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS CONNECTION LIMIT 16 PASSWORD '${verifier}'`;
  return [
    `DO $rtc$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = '${name}') THEN
        ALTER ROLE ${name} WITH ${attributes};
      ELSE
        CREATE ROLE ${name} WITH ${attributes};
      END IF;
    END $rtc$`,
    ...groups.map((g) => `GRANT ${checkedRole(g)} TO ${name}`),
  ];
}

/** Logins already known to this process, by bridge and role. */
const known = new WeakMap<PgBridge, Map<string, Login>>();

/**
 * The login for `name` (a persona id or a plugin component), made when missing and `create`
 * is set; undefined when missing and not to be made (a read-only session). Every kernel of the
 * fleet finds the same one in runtimectl_kernel.logins.
 */
export function ensureLogin(bridge: PgBridge, prefix: string, kind: LoginKind, name: string, create: boolean): Login | undefined {
  const role = loginRole(prefix, kind, name);
  let cache = known.get(bridge);
  if (cache === undefined) known.set(bridge, (cache = new Map()));
  const cached = cache.get(role);
  if (cached) return cached;
  const found = bridge.querySync('SELECT secret FROM runtimectl_kernel.logins WHERE role = $1', [role]).rows[0];
  let password = found === undefined ? undefined : String(found.secret);
  if (password === undefined) {
    if (!create) return undefined;
    password = randomBytes(32).toString('hex');
    const groups = kind === 'component' ? [] : kind === 'persona' ? [pluginsRole(prefix)] : [readersRole(prefix)];
    const answer = bridge.txSync({
      statements: [
        // One maker at a time: two kernels opening the same persona make one role.
        { sql: 'LOCK TABLE runtimectl_kernel.logins IN SHARE ROW EXCLUSIVE MODE' },
        { sql: 'SELECT count(*) FROM runtimectl_kernel.logins WHERE role = $1', params: [role], expect: { firstValue: 0 } },
        ...loginStatements(role, scramVerifier(password), groups).map((sql) => ({ sql })),
        ...(kind === 'component' ? componentGrants(role).map((sql) => ({ sql })) : []),
        { sql: 'INSERT INTO runtimectl_kernel.logins (role, kind, name, secret) VALUES ($1, $2, $3, $4)', params: [role, kind, name, password] },
      ],
    });
    if (!('results' in answer)) {
      // Another kernel made it meanwhile: use that one.
      const again = bridge.querySync('SELECT secret FROM runtimectl_kernel.logins WHERE role = $1', [role]).rows[0];
      if (again === undefined) throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${bridge.where}: the login for ${kind} ${name} could not be made`, { internal: true });
      password = String(again.secret);
    }
  }
  const login = { role, password };
  cache.set(role, login);
  bridge.registerLogin(login);
  return login;
}

/** What a plugin component's migration role may do: use its schemas, create tables in runtimectl, record its own version. */
export function componentGrants(role: string): string[] {
  const name = checkedRole(role);
  return [
    `GRANT USAGE, CREATE ON SCHEMA runtimectl TO ${name}`,
    `GRANT USAGE ON SCHEMA runtimectl_api TO ${name}`,
    `GRANT EXECUTE ON FUNCTION runtimectl_api.persona(), runtimectl_api.migration_version(), runtimectl_api.record_migration(integer, integer), runtimectl_api.migration_exec(text) TO ${name}`,
  ];
}

/**
 * Gives a login role a new password (the server refused the one kept: a plugin statement may
 * change its own role's password, or an operator reset it) and tells the worker.
 */
export function repairLogin(bridge: PgBridge, role: string): Login {
  const row = bridge.querySync('SELECT kind FROM runtimectl_kernel.logins WHERE role = $1', [role]).rows[0];
  if (row === undefined) throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${bridge.where}: no login ${role} is kept`, { internal: true });
  const password = randomBytes(32).toString('hex');
  bridge.txSync({
    statements: [
      { sql: `ALTER ROLE ${checkedRole(role)} WITH PASSWORD '${scramVerifier(password)}'` },
      { sql: 'UPDATE runtimectl_kernel.logins SET secret = $2 WHERE role = $1', params: [role, password] },
    ],
  });
  const login = { role, password };
  known.get(bridge)?.set(role, login);
  bridge.registerLogin(login);
  return login;
}
