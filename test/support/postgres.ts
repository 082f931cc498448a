/**
 * A throwaway PostgreSQL cluster for the tests that need a real server: `initdb` in a temp
 * folder, the server on a unix socket in that folder (no TCP port to collide with other test
 * runs on the machine) and, when asked, on a free loopback port; stopped (and the folder
 * removed) at the end. Run as the `postgres` user when the tests run as root (the server
 * refuses root), through `runuser`.
 *
 * The cluster has a superuser `rtc_admin` (for the tests' own set-up and sabotage) and the
 * application role `runtimectl` (LOGIN, CREATEROLE, password, owner of database `runtimectl`, no
 * superuser: the role a kernel connects as, so row-level security applies to it).
 *
 * Without PostgreSQL binaries the suites skip with a visible reason, unless
 * RUNTIMECTL_REQUIRE_POSTGRES=1 (set by .ci/run), which makes the missing server a failure.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const CANDIDATE_BINS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/14/bin', '/usr/local/pgsql/bin', '/usr/bin'];

export const APP_PASSWORD = 'rtc-app-secret';

function findBin(): string | undefined {
  const fromEnv = process.env.RUNTIMECTL_PG_BIN;
  if (fromEnv && existsSync(path.join(fromEnv, 'initdb'))) return fromEnv;
  for (const dir of CANDIDATE_BINS) if (existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl'))) return dir;
  try {
    const versions = readdirSync('/usr/lib/postgresql').sort().reverse();
    for (const v of versions) if (existsSync(path.join('/usr/lib/postgresql', v, 'bin', 'initdb'))) return path.join('/usr/lib/postgresql', v, 'bin');
  } catch {
    // no Debian layout
  }
  return undefined;
}

/** Why the Postgres suites cannot run here, or undefined when they can. Throws under RUNTIMECTL_REQUIRE_POSTGRES=1. */
export function postgresSkipReason(): string | undefined {
  const bin = findBin();
  const reason = bin === undefined ? 'PostgreSQL is not installed (no initdb/pg_ctl found; apt-get install postgresql, or set RUNTIMECTL_PG_BIN)' : undefined;
  if (reason && process.env.RUNTIMECTL_REQUIRE_POSTGRES === '1') throw new Error(`RUNTIMECTL_REQUIRE_POSTGRES=1 but ${reason}`);
  return reason;
}

function asServerUser(): string[] {
  if (process.getuid?.() !== 0) return [];
  return ['runuser', '-u', 'postgres', '--'];
}

function run(command: string[], what: string): void {
  const [bin, ...args] = command;
  const result = spawnSync(bin!, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${what} failed (${result.status}): ${(result.stderr || result.stdout || '').trim().split('\n').slice(-3).join(' | ')}`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface TestPostgres {
  /** the application role's DSN over the unix socket */
  dsn: string;
  /** the superuser's DSN over the unix socket */
  adminDsn: string;
  /** the same as dsn over loopback TCP, when started with { tcp: true } */
  tcpDsn?: string;
  socketDir: string;
  port: number;
  /** a DSN with the application role and a wrong password */
  wrongPasswordDsn: string;
  /** runs SQL as the superuser in `database` (default runtimectl), in a short child process; answers the rows as JSON */
  admin(sql: string, database?: string): string;
  /** admin() without holding this process's main thread (while the kernel under test keeps working) */
  adminAsync(sql: string, database?: string): Promise<string>;
  stop(): void;
}

/** Starts a cluster; call stop() at the end (the test's after hook). */
export async function startPostgres(options: { tcp?: boolean } = {}): Promise<TestPostgres> {
  const bin = findBin();
  if (bin === undefined) throw new Error('PostgreSQL is not installed');
  const root = mkdtempSync(path.join(os.tmpdir(), 'rtc-pg-'));
  const user = asServerUser();
  if (user.length > 0) {
    const ids = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
    const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
    chownSync(root, Number(ids), Number(gid));
  }
  const data = path.join(root, 'data');
  const pwfile = path.join(root, 'pw');
  writeFileSync(pwfile, 'rtc-admin-secret\n', { mode: 0o644 });
  if (user.length > 0) chownSync(pwfile, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()), 0);
  run([...user, path.join(bin, 'initdb'), '-D', data, '-U', 'rtc_admin', '--pwfile', pwfile, '-A', 'scram-sha-256', '--no-sync', '-E', 'UTF8', '--locale=C'], 'initdb');
  const port = options.tcp ? await freePort() : 50000 + Math.floor(Math.random() * 10000);
  const listen = options.tcp ? '127.0.0.1' : '';
  run([...user, path.join(bin, 'pg_ctl'), '-D', data, '-l', path.join(root, 'server.log'), '-w', '-t', '120', '-o', `-k ${root} -c listen_addresses='${listen}' -p ${port} -c max_connections=200 -c fsync=on`, 'start'], 'pg_ctl start');
  const adminDsn = `postgres://rtc_admin:rtc-admin-secret@localhost/postgres?host=${encodeURIComponent(root)}&port=${port}`;
  const adminArgs = (sql: string, database: string): string[] => {
    // The test process must not hold a pg connection of its own for set-up: a short child does it.
    const target = adminDsn.replace('@localhost/postgres?', `@localhost/${database}?`);
    const script = `import pg from 'pg'; const c = new pg.Client(${JSON.stringify(target)}); await c.connect(); const r = await c.query(process.argv[1]); await c.end(); process.stdout.write(JSON.stringify((Array.isArray(r) ? r.at(-1) : r).rows ?? []));`;
    return ['--input-type=module', '-e', script, sql];
  };
  const cwd = path.resolve(import.meta.dirname, '..', '..');
  const admin = (sql: string, database = 'runtimectl'): string => execFileSync(process.execPath, adminArgs(sql, database), { encoding: 'utf8', cwd });
  const adminAsync = (sql: string, database = 'runtimectl'): Promise<string> =>
    new Promise((resolve, reject) => execFile(process.execPath, adminArgs(sql, database), { encoding: 'utf8', cwd }, (error, stdout) => (error ? reject(error) : resolve(stdout))));
  // CREATEROLE: the kernel makes the roles plugin statements run as (features/persistence/storage/postgres/pg-roles.ts).
  admin(`CREATE ROLE runtimectl LOGIN CREATEROLE PASSWORD '${APP_PASSWORD}'`, 'postgres');
  admin('CREATE DATABASE runtimectl OWNER runtimectl', 'postgres');
  const dsn = `postgres://runtimectl:${APP_PASSWORD}@localhost/runtimectl?host=${encodeURIComponent(root)}&port=${port}`;
  let stopped = false;
  return {
    dsn,
    adminDsn,
    ...(options.tcp ? { tcpDsn: `postgres://runtimectl:${APP_PASSWORD}@127.0.0.1:${port}/runtimectl` } : {}),
    socketDir: root,
    port,
    wrongPasswordDsn: `postgres://runtimectl:not-the-password@localhost/runtimectl?host=${encodeURIComponent(root)}&port=${port}`,
    admin,
    adminAsync,
    stop() {
      if (stopped) return;
      stopped = true;
      spawnSync(user[0] ?? path.join(bin, 'pg_ctl'), [...user.slice(1), ...(user.length > 0 ? [path.join(bin, 'pg_ctl')] : []), '-D', data, '-m', 'immediate', '-w', 'stop'], { encoding: 'utf8' });
      rmSync(root, { recursive: true, force: true });
    },
  };
}
