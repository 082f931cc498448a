/**
 * What a postgres persistence plugin can reach (issue 27, item 4), against a real server: the
 * plugins' tables in schema runtimectl, only its persona's rows of them, and nothing of the
 * kernel's, by privilege. No statement is parsed: each variant below is sent as an attacker
 * would and refused by the server (SQLSTATE 42501 and the like) or harmless, and after each
 * the kernel's schema (the chain, leases, history, versions, logins) and the other persona's
 * rows are exactly as they were.
 *
 * Also: a plugin's migrations run as its component's role and may make only tables under the
 * kernel's row-level security (a function, view, trigger, extra policy, grant or default
 * privilege, a table outside runtimectl or without a persona column, a COMMIT to keep half of
 * it: each refused, nothing kept); a read-only session writes nothing whatever it sends; and a
 * database of the previous version (fixtures/legacy-postgres/runtimectl-v2.sql: pg_dump
 * --inserts of a database runtimectl 6725d9a wrote, the psql-only \restrict lines dropped)
 * migrates: the kernel's tables moved, its chain, segments, memory, proposals and ledger read
 * back and exported byte for byte as that version exported them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgresSkipReason, startPostgres, type TestPostgres } from '../../../test/support/postgres.ts';
import { bridgeFor, closeBridges } from '../storage/postgres/pg-bridge.ts';
import { loginRole, rolePrefix } from '../storage/postgres/pg-roles.ts';
import { copyPersistence, openBackend } from '../index.ts';
import type { PersonaBackend } from '../backend.ts';
import { assertRejectsKernel, personaDir } from './helpers.ts';
import { tempDir } from '../../science-loop/test/helpers.ts';
import { COPY_PARTS } from './copy-parts.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const skip = postgresSkipReason();
type Answer = { ok?: { rows: Record<string, unknown>[]; rowCount: number } | unknown; error?: string };

let pg: TestPostgres;

function rowsOf(sql: string, database?: string): Record<string, unknown>[] {
  return JSON.parse(pg.admin(sql, database)) as Record<string, unknown>[];
}

/** A plugin folder holding the hostile fixture with storage.postgres as its binding. */
function hostilePlugins(): string {
  const plugins = tempDir('rtc-pg-plugins-');
  const folder = path.join(plugins, 'persistence-hostile-pg');
  fs.mkdirSync(folder, { recursive: true });
  fs.copyFileSync(path.join(HERE, 'fixtures', 'plugins', 'persistence-hostile', 'mod.ts'), path.join(folder, 'mod.ts'));
  const manifest = fs
    .readFileSync(path.join(HERE, 'fixtures', 'plugins', 'persistence-hostile', 'plugin.yaml'), 'utf8')
    .replace('id: persistence.hostile', 'id: persistence.hostile-pg')
    .replace('bindings: [storage.files, storage.sqlite]', 'bindings: [storage.files, storage.postgres]');
  fs.writeFileSync(path.join(folder, 'plugin.yaml'), manifest);
  return plugins;
}

async function hostile(plugins: string, persona: string, options: { readonly?: boolean; dsn?: string } = {}): Promise<PersonaBackend> {
  const dir = personaDir(persona);
  fs.writeFileSync(path.join(dir, 'attack.txt'), '');
  return openBackend(dir, 'hostile-pg', { dsn: options.dsn ?? pg.dsn, pluginsDir: plugins, ...(options.readonly ? { readonly: true } : {}) });
}

describe('postgres: what a plugin\'s statements can reach', { skip }, () => {
  let plugins: string;
  let b: PersonaBackend;
  let kernelBefore: string;
  const victim = 'victim';
  const attacker = 'mallory';

  /** The kernel's schema, and the victim persona's plugin rows (what no statement of the attacker may change). */
  function protectedState(): string {
    // One query (one short child process): each part as JSON, in a fixed order.
    const parts = [
      'SELECT persona, seq, hash FROM runtimectl_kernel.events ORDER BY 1, 2',
      'SELECT persona, holder FROM runtimectl_kernel.leases ORDER BY 1',
      'SELECT persona, segment, md5(data) AS d, stub FROM runtimectl_kernel.event_segments ORDER BY 1, 2',
      'SELECT component, version FROM runtimectl_kernel.schema_versions ORDER BY 1',
      'SELECT role, kind, name, md5(secret) AS s FROM runtimectl_kernel.logins ORDER BY 1',
      'SELECT persona FROM runtimectl_kernel.personas ORDER BY 1',
      `SELECT name, md5(content) AS c FROM runtimectl.memory WHERE persona = '${victim}' ORDER BY 1`,
      "SELECT n.nspname, c.relname, c.relowner::regrole::text AS owner, c.relrowsecurity, c.relacl::text AS acl FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname LIKE 'runtimectl%' AND c.relkind IN ('r', 'v', 'm', 'f') ORDER BY 1, 2",
      "SELECT n.nspname, p.proname, p.prosecdef, p.proowner::regrole::text AS owner FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname LIKE 'runtimectl%' OR n.nspname = 'public' ORDER BY 1, 2",
      'SELECT polrelid::regclass::text AS t, polname, pg_get_expr(polqual, polrelid) AS q FROM pg_policy ORDER BY 1, 2',
      "SELECT rolname, rolsuper, rolcreaterole, rolbypassrls FROM pg_roles WHERE rolname LIKE 'rtc_%' ORDER BY 1",
    ];
    return pg.admin(`SELECT json_build_array(${parts.map((q) => `(SELECT json_agg(x) FROM (${q}) x)`).join(', ')}) AS state`);
  }

  const query = async (sql: string, params: unknown[] = []): Promise<Answer> => (await b.callPlugin('tryOp', { op: 'storage.postgres.query', args: { sql, params } })) as Answer;
  const batch = async (statements: { sql: string; params?: unknown[] }[]): Promise<Answer> => (await b.callPlugin('tryOp', { op: 'storage.postgres.batch', args: { statements } })) as Answer;

  before(async () => {
    pg = await startPostgres();
    plugins = hostilePlugins();
    const v = await openBackend(personaDir(victim), 'postgres', { dsn: pg.dsn });
    await v.events.append('test.secret', { text: 'the victim\'s chain' });
    v.memory.writeBrain('{"secret":"the victim\'s brain"}');
    await v.close();
    b = await hostile(plugins, attacker);
    kernelBefore = protectedState();
  });

  after(async () => {
    await b?.close();
    await closeBridges();
    pg?.stop();
  });

  test('the kernel\'s tables, by any name, in any form: refused by privilege, not by parsing (issue 27\'s variants first)', async () => {
    const attempts: [string, RegExp][] = [
      ['SELECT * FROM U&"\\0065vents"', /42P01/],
      ['SELECT * FROM runtimectl_kernel.U&"\\0065vents"', /42501: permission denied for schema runtimectl_kernel/],
      ['SELECT * FROM "runtimectl_kernel"."events"', /42501/],
      ["UPDATE runtimectl_kernel.events SET payload = '{}'", /42501/],
      ['DELETE FROM runtimectl_kernel.leases', /42501/],
      ['UPDATE runtimectl_kernel.schema_versions SET version = 0', /42501/],
      ['SELECT secret FROM runtimectl_kernel.logins', /42501/],
      ["SELECT table_to_xml('runtimectl_kernel.events', true, true, '')", /42501/],
      ["SELECT query_to_xml('select * from runtimectl_kernel.events', true, true, '')", /42501/],
      ["SELECT * FROM pg_catalog.pg_class WHERE oid = 'runtimectl_kernel.events'::regclass", /42501/],
      ["DO $$ BEGIN EXECUTE 'DELETE FROM runtimectl_kernel.ev' || 'ents'; END $$", /42501/],
      ["SELECT rolpassword FROM pg_authid", /42501/],
      ['TRUNCATE runtimectl.memory', /42501/],
      ['ALTER TABLE runtimectl.memory DISABLE ROW LEVEL SECURITY', /42501: must be owner/],
      ['DROP POLICY persona_rows ON runtimectl.memory', /42501: must be owner/],
      ['DROP TABLE runtimectl.memory', /42501: must be owner/],
      ['CREATE TABLE runtimectl.mine (persona text)', /42501: permission denied for schema runtimectl/],
      ['CREATE FUNCTION runtimectl.f() RETURNS int LANGUAGE sql SECURITY DEFINER AS $$ SELECT 1 $$', /42501/],
      ['CREATE FUNCTION public.f() RETURNS int LANGUAGE sql SECURITY DEFINER AS $$ SELECT 1 $$', /42501/],
      ['ALTER DEFAULT PRIVILEGES FOR ROLE runtimectl GRANT ALL ON TABLES TO PUBLIC', /42501/],
      ['CREATE ROLE rtc_evil LOGIN SUPERUSER', /42501/],
      ['CREATE EXTENSION dblink', /42501|0A000|58P01/],
      ["SELECT dblink_connect('dbname=runtimectl user=runtimectl')", /postgres: 42883/],
      ["SELECT pg_read_file('/etc/passwd')", /42501/],
      ["SELECT pg_ls_dir('.')", /42501/],
      ["SELECT * FROM pg_stat_file('postgresql.conf')", /42501/],
      ["SELECT lo_import('/etc/passwd')", /42501/],
      ["SELECT lo_export(1, '/tmp/rtc-lo')", /42501|42704/],
      ["COPY runtimectl.memory TO '/tmp/rtc-copy'", /42501/],
      ["COPY runtimectl.memory FROM '/etc/passwd'", /42501/],
      ["COPY (SELECT 1) TO PROGRAM 'touch /tmp/rtc-pwned'", /42501/],
      ['SET ROLE runtimectl', /42501: permission denied to set role/],
      ['SET ROLE rtc_admin', /42501/],
      ['SET SESSION AUTHORIZATION runtimectl', /42501/],
      ["SELECT set_config('role', 'runtimectl', false)", /42501/],
      ['SELECT "set_config"(\'session_authorization\', \'runtimectl\', false)', /42501/],
      ['SELECT 1; DELETE FROM runtimectl.memory', /42601: cannot insert multiple commands into a prepared statement/],
      ['SELECT pg_reload_conf()', /42501/],
    ];
    for (const [sql, refusal] of attempts) {
      const answer = await query(sql);
      assert.ok(answer.error !== undefined, `${sql}: ${JSON.stringify(answer.ok)}`);
      assert.doesNotMatch(answer.error, /RTC_ERR_PERSISTENCE_STATEMENT/, `${sql}: refused by the server, not by parsing`);
      assert.match(answer.error, refusal, sql);
      assert.equal(protectedState(), kernelBefore, `after ${sql}`);
    }
    assert.equal(fs.existsSync('/tmp/rtc-pwned') || fs.existsSync('/tmp/rtc-copy'), false);
  });

  test("the kernel's connections cannot be terminated or cancelled by a plugin", async () => {
    // A reader of the victim keeps kernel connections open while the attacker tries.
    const held = await openBackend(personaDir(victim), 'postgres', { dsn: pg.dsn, readonly: true });
    try {
      assert.ok([...held.events.read()].length > 0);
      for (const fn of ['pg_terminate_backend', 'pg_cancel_backend']) {
        const answer = await query(`SELECT ${fn}(pid) FROM pg_stat_activity WHERE usename = 'runtimectl'`);
        assert.match(answer.error ?? JSON.stringify(answer), /postgres: 42501: must be a member of the role whose/, fn);
      }
      assert.ok([...held.events.read()].length > 0, 'the kernel reads on');
    } finally {
      await held.close();
    }
    assert.equal(protectedState(), kernelBefore);
  });

  test('set_config of the old persona setting, RESET ROLE, SET ROLE to the plugins\' group: still only its own rows', async () => {
    assert.match((await query(`INSERT INTO runtimectl.memory (name, content) VALUES ('brain.json', '{"mallory":1}')`)).error ?? 'ok', /ok/);
    for (const first of [
      `SELECT "set_config"('runtimectl.persona', '${victim}', false)`,
      `SELECT set_config('runtimectl.persona', '${victim}', true)`,
      'RESET ROLE',
      `SET ROLE ${rolePrefix('runtimectl')}_plugins`,
      'SET row_security = off',
    ]) {
      const answer = await batch([{ sql: first }, { sql: 'SELECT persona, content FROM runtimectl.memory ORDER BY name' }]);
      if (answer.error !== undefined) {
        assert.match(answer.error, /42501|query would be affected by row-level security/, first);
        continue;
      }
      const results = (answer.ok as { results: { rows: Record<string, unknown>[] }[] }).results;
      assert.deepEqual(results[1]!.rows.map((r) => r.persona), [attacker], first);
    }
    const sneaky = await query(`UPDATE runtimectl.memory SET persona = '${victim}' WHERE name = 'brain.json'`);
    assert.match(sneaky.error ?? '', /42501: new row violates row-level security policy/);
    const planted = await query(`INSERT INTO runtimectl.memory (persona, name, content) VALUES ('${victim}', 'long-term.md', 'planted')`);
    assert.match(planted.error ?? '', /42501: new row violates row-level security policy/);
    const others = await query(`SELECT pg_catalog.count(*)::int AS n FROM runtimectl.memory WHERE persona = '${victim}'`);
    assert.deepEqual((others.ok as { rows: unknown[] }).rows, [{ n: 0 }]);
    assert.equal(protectedState(), kernelBefore);
  });

  test('the kernel\'s own statements are unseen: pg_stat_activity hides them, NOTIFY and advisory locks reach nothing the kernel waits on', async () => {
    const seen = await query("SELECT usename, query FROM pg_stat_activity WHERE usename = 'runtimectl'");
    for (const row of (seen.ok as { rows: { query: string | null }[] }).rows) assert.ok(row.query === null || row.query === '<insufficient privilege>', JSON.stringify(row));
    assert.equal((await query("NOTIFY runtimectl, 'x'")).error, undefined);
    assert.equal((await query('SELECT pg_advisory_lock(1), pg_advisory_lock(hashtext(\'runtimectl.migrations\'))')).error, undefined);
    // The kernel goes on: appends, a seal, a migration of another component all work.
    const v = await openBackend(personaDir(victim), 'postgres', { dsn: pg.dsn });
    try {
      await v.events.append('test.after-attacks', {});
      assert.equal(v.events.verify().ok, true);
    } finally {
      await v.close();
    }
    kernelBefore = protectedState();
  });

  test('a statement that ends the binding\'s transaction is refused, and what follows it never runs', async () => {
    const answer = await batch([{ sql: "INSERT INTO runtimectl.memory (name, content) VALUES ('n1', 'x')" }, { sql: 'COMMIT' }, { sql: "INSERT INTO runtimectl.memory (name, content) VALUES ('n2', 'x')" }]);
    assert.match(answer.error ?? '', /25000: statement 2 ended the binding's transaction/);
    const names = ((await query("SELECT name FROM runtimectl.memory WHERE name IN ('n1', 'n2') ORDER BY 1")).ok as { rows: { name: string }[] }).rows.map((r) => r.name);
    assert.ok(!names.includes('n2'), 'the statement after the COMMIT never ran');
    assert.equal(protectedState(), kernelBefore);
  });

  test('a read-only session writes nothing, whatever it sends: its role may only read', async () => {
    const reader = await hostile(plugins, attacker, { readonly: true });
    try {
      const ro = async (statements: { sql: string }[]) => (await reader.callPlugin('tryOp', { op: 'storage.postgres.batch', args: { statements } })) as Answer;
      for (const statements of [
        [{ sql: "INSERT INTO runtimectl.memory (name, content) VALUES ('ro', 'x')" }],
        [{ sql: 'SET TRANSACTION READ WRITE' }, { sql: "INSERT INTO runtimectl.memory (name, content) VALUES ('ro', 'x')" }],
        [{ sql: 'COMMIT AND CHAIN' }, { sql: 'SET TRANSACTION READ WRITE' }, { sql: "INSERT INTO runtimectl.memory (name, content) VALUES ('ro', 'x')" }],
        [{ sql: `SET ROLE ${rolePrefix('runtimectl')}_plugins` }, { sql: "INSERT INTO runtimectl.memory (name, content) VALUES ('ro', 'x')" }],
        [{ sql: "DELETE FROM runtimectl.memory WHERE name = 'brain.json'" }],
      ]) {
        const answer = await ro(statements);
        assert.ok(answer.error !== undefined, JSON.stringify(statements));
      }
      const mine = (await reader.callPlugin('tryOp', { op: 'storage.postgres.query', args: { sql: 'SELECT name FROM runtimectl.memory ORDER BY 1' } })) as Answer;
      assert.ok(!(mine.ok as { rows: { name: string }[] }).rows.some((r) => r.name === 'ro'));
      assert.ok((mine.ok as { rows: { name: string }[] }).rows.some((r) => r.name === 'brain.json'), 'it reads its own rows');
    } finally {
      await reader.close();
    }
    assert.equal(protectedState(), kernelBefore);
  });

  test('a statement past the statement timeout is cancelled by the kernel, whatever statement_timeout the plugin SET', async () => {
    // A kernel whose bridge has a 2 s statement timeout (the bridge is made once per DSN: this DSN is new).
    const dsn = `${pg.dsn}&application_name=short-timeout`;
    bridgeFor(dsn, { statementTimeoutMs: 2000 });
    const slow = await hostile(plugins, 'sloth', { dsn });
    try {
      const started = Date.now();
      const answer = (await slow.callPlugin('tryOp', { op: 'storage.postgres.batch', args: { statements: [{ sql: 'SET statement_timeout = 0' }, { sql: 'SELECT pg_sleep(30)' }] } })) as Answer;
      assert.match(answer.error ?? JSON.stringify(answer), /postgres: 57014: canceling statement due to user request/);
      assert.ok(Date.now() - started < 20_000, `cancelled after ${Date.now() - started} ms`);
      assert.equal(((await slow.callPlugin('tryOp', { op: 'storage.postgres.query', args: { sql: 'SELECT 1 AS one' } })) as Answer).error, undefined, 'the persona goes on');
    } finally {
      await slow.close();
    }
  });

  test('a login whose password no longer works (an operator reset it) is given a new one by the kernel; a plugin cannot change it', async () => {
    const role = loginRole(rolePrefix('runtimectl'), 'persona', attacker);
    assert.match((await query(`ALTER ROLE ${role} PASSWORD 'chosen-by-the-plugin'`)).error ?? '', /postgres: 42501/);
    pg.admin(`ALTER ROLE ${role} PASSWORD 'reset-by-an-operator'`);
    pg.admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${role}'`);
    const again = await query('SELECT pg_catalog.count(*)::int AS n FROM runtimectl.memory');
    assert.equal(again.error, undefined, JSON.stringify(again));
    assert.notDeepEqual(rowsOf(`SELECT md5(secret) AS s FROM runtimectl_kernel.logins WHERE role = '${role}'`), [], 'the new password is kept for the fleet');
    kernelBefore = protectedState();
  });
});

describe('postgres: what a plugin\'s migrations can make', { skip }, () => {
  let plugins: string;
  let b: PersonaBackend;

  before(async () => {
    pg = await startPostgres();
    plugins = hostilePlugins();
    const v = await openBackend(personaDir('victim'), 'postgres', { dsn: pg.dsn });
    v.memory.writeBrain('{"secret":"the victim\'s brain"}');
    await v.close();
    b = await hostile(plugins, 'mallory');
  });

  after(async () => {
    await b?.close();
    await closeBridges();
    pg?.stop();
  });

  const migrate = async (statements: string[], version = 1): Promise<Answer> => (await b.callPlugin('tryOp', { op: 'storage.postgres.migrate', args: { migrations: [{ version, statements }] } })) as Answer;
  const leftover = () =>
    rowsOf("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname IN ('runtimectl', 'public') AND c.relname LIKE 'h\\_%' ORDER BY 1").map((r) => r.relname);

  test('anything but tables under the kernel\'s row-level security is refused, and the migration leaves nothing', async () => {
    const attempts: [string[], RegExp][] = [
      [['CREATE TABLE public.h_outside (persona text)'], /42501/],
      [['CREATE TABLE runtimectl.h_bare (x text)'], /has no persona column/],
      [['CREATE TABLE runtimectl.h_f (persona text, x text)', 'CREATE FUNCTION runtimectl.h_leak() RETURNS SETOF text LANGUAGE sql SECURITY DEFINER AS $$ SELECT x FROM runtimectl.h_f $$'], /may make only tables.*function runtimectl\.h_leak\(\)/],
      [['CREATE TABLE runtimectl.h_v0 (persona text)', 'CREATE VIEW runtimectl.h_view AS SELECT * FROM runtimectl.h_v0'], /may make only tables.*relation runtimectl\.h_view \(kind v\)/],
      [['CREATE TABLE runtimectl.h_t (persona text)', 'CREATE TRIGGER h_trig BEFORE UPDATE ON runtimectl.h_t FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()'], /may make only tables.*trigger h_trig/],
      [['CREATE TABLE runtimectl.h_r (persona text)', 'CREATE RULE h_rule AS ON INSERT TO runtimectl.h_r DO INSTEAD NOTHING'], /may make only tables.*rule h_rule/],
      [['ALTER DEFAULT PRIVILEGES GRANT ALL ON TABLES TO PUBLIC'], /may make only tables.*default privileges/],
      [['CREATE TABLE runtimectl.h_copy AS SELECT * FROM runtimectl_kernel.events'], /42501/],
      [['ALTER TABLE runtimectl.memory ADD COLUMN h_x text'], /42501: must be owner/],
      [['DROP TABLE runtimectl.memory'], /42501: must be owner/],
      [["DO $$ BEGIN EXECUTE 'DELETE FROM runtimectl_kernel.events'; END $$"], /42501/],
      [['SET ROLE runtimectl'], /42501/],
      [['CREATE TABLE runtimectl.h_commit (persona text)', 'COMMIT', 'CREATE FUNCTION runtimectl.h_after() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$'], /0A000: EXECUTE of transaction commands is not implemented/],
      [['CREATE TABLE runtimectl.h_chain (persona text)', 'COMMIT AND CHAIN'], /0A000: EXECUTE of transaction commands is not implemented/],
      [['CREATE TABLE runtimectl.h_proc (persona text)', 'DO $$ BEGIN COMMIT; END $$'], /2D000: invalid transaction termination/],
      [['SELECT runtimectl_api.record_migration(0, 99)'], /is at version 99, not 0/],
      [['CREATE TABLE runtimectl.h_temp (persona text)', 'CREATE FUNCTION pg_temp.h_tmp() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$'], /may make only tables.*function/],
    ];
    for (const [statements, refusal] of attempts) {
      const answer = await migrate(statements);
      assert.match(answer.error ?? JSON.stringify(answer), /RTC_ERR_PERSISTENCE_STATEMENT: postgres migration of persistence\.hostile-pg refused/, statements.join('; '));
      assert.match(answer.error!, refusal, statements.join('; '));
      assert.deepEqual(leftover(), [], `nothing kept after ${statements.join('; ')}`);
    }
    assert.deepEqual(rowsOf("SELECT version FROM runtimectl_kernel.schema_versions WHERE component = 'persistence.hostile-pg'"), []);
    assert.deepEqual(rowsOf("SELECT proname FROM pg_proc WHERE proname LIKE 'h\\_%'"), []);
  });

  test('an accepted migration\'s tables get the kernel\'s one policy and grants, whatever policies and grants it added', async () => {
    const answer = await migrate([
      'CREATE TABLE runtimectl.h_ok (persona text NOT NULL, x text)',
      'CREATE POLICY h_open ON runtimectl.h_ok USING (true) WITH CHECK (true)',
      'GRANT ALL ON runtimectl.h_ok TO PUBLIC',
      'CREATE TABLE runtimectl.h_seq (persona text NOT NULL, id serial)',
    ]);
    assert.equal(answer.error, undefined, JSON.stringify(answer));
    assert.deepEqual(rowsOf("SELECT polname, pg_get_expr(polqual, polrelid) AS q FROM pg_policy WHERE polrelid = 'runtimectl.h_ok'::regclass"), [{ polname: 'persona_rows', q: '(persona = runtimectl_api.persona())' }]);
    const acl = String(rowsOf("SELECT relacl::text AS acl FROM pg_class WHERE oid = 'runtimectl.h_ok'::regclass")[0]!.acl);
    assert.doesNotMatch(acl, /(^|[{,])=/, `no PUBLIC grant left: ${acl}`);
    assert.match(acl, /_plugins=arwd\//);
    assert.match(acl, /_readers=r\//);
    // The persona column defaults to the session's persona: an insert that names none is its own.
    assert.equal((await b.callPlugin('tryOp', { op: 'storage.postgres.query', args: { sql: "INSERT INTO runtimectl.h_ok (x) VALUES ('mine')" } }) as Answer).error, undefined);
    assert.deepEqual(rowsOf("SELECT persona, x FROM runtimectl.h_ok"), [{ persona: 'mallory', x: 'mine' }]);
    assert.deepEqual(rowsOf("SELECT version FROM runtimectl_kernel.schema_versions WHERE component = 'persistence.hostile-pg'"), [{ version: 1 }]);
  });
});

describe('postgres: a database of the previous version migrates', { skip }, () => {
  let dsn: string;

  before(async () => {
    pg = await startPostgres();
    pg.admin('CREATE DATABASE legacy OWNER runtimectl', 'postgres');
    const dump = fs.readFileSync(path.join(HERE, 'fixtures', 'legacy-postgres', 'runtimectl-v2.sql'), 'utf8');
    // Restored as the application role, which owned everything the previous version made.
    pg.admin(`SET ROLE runtimectl; ${dump}`, 'legacy');
    dsn = pg.dsn.replace('/runtimectl?', '/legacy?');
  });

  after(async () => {
    await closeBridges();
    pg?.stop();
  });

  test('a reader is refused in one line until a writer migrates; then every persona reads back and exports byte for byte', async () => {
    const before = rowsOf('SELECT persona, seq, hash FROM runtimectl.events ORDER BY 1, 2', 'legacy');
    await assertRejectsKernel(() => openBackend(personaDir('ada'), 'postgres', { dsn, readonly: true }), 'RTC_ERR_PERSISTENCE_SCHEMA_OLDER', 'persona ada', 'the kernel schema is version 2', 'start a kernel on it', 'left untouched');
    assert.deepEqual(rowsOf('SELECT persona, seq, hash FROM runtimectl.events ORDER BY 1, 2', 'legacy'), before, 'the reader changed nothing');
    const writer = await openBackend(personaDir('bob'), 'postgres', { dsn });
    try {
      assert.equal(writer.memory.readBrain(), '{"format":"runtimectl.brain/1","persona":"bob"}\n');
      await writer.events.append('test.after-move', {});
      assert.equal(writer.events.verify().ok, true);
    } finally {
      await writer.close();
    }
    assert.deepEqual(rowsOf("SELECT component, version FROM runtimectl_kernel.schema_versions ORDER BY 1", 'legacy'), [
      { component: 'kernel', version: 3 },
      { component: 'persistence.postgres', version: 1 },
    ]);
    // Every event of before is where it was, in the kernel's schema now.
    assert.deepEqual(rowsOf('SELECT persona, seq, hash FROM runtimectl_kernel.events WHERE (persona, seq) IN (SELECT persona, seq FROM runtimectl_kernel.events) ORDER BY 1, 2', 'legacy').filter((r) => before.some((x) => x.persona === r.persona && x.seq === r.seq)), before);
    assert.deepEqual(rowsOf("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'runtimectl' AND tablename IN ('events', 'leases', 'personas', 'schema_versions', 'event_segments')", 'legacy'), [{ n: 0 }], 'the kernel\'s tables left the plugins\' schema');
    // The plugin's tables made before are its component's now, under the new policy.
    const owners = rowsOf("SELECT DISTINCT c.relowner::regrole::text AS owner FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'runtimectl' AND c.relkind = 'r'", 'legacy');
    assert.deepEqual(owners, [{ owner: loginRole(rolePrefix('legacy'), 'component', 'persistence.postgres') }]);
    assert.deepEqual(rowsOf("SELECT DISTINCT pg_get_expr(polqual, polrelid) AS q FROM pg_policy", 'legacy'), [{ q: '(persona = runtimectl_api.persona())' }]);

    // Every persona of before got its roles at the move: ada's reader sees ada's rows (the ledger's change log included), and only those.
    const reader = loginRole(rolePrefix('legacy'), 'reader', 'ada');
    for (const table of ['memory', 'proposals', 'ledger_changes']) {
      const mine = rowsOf(`SET SESSION AUTHORIZATION ${reader}; SELECT persona, count(*)::int AS n FROM runtimectl.${table} GROUP BY 1`, 'legacy');
      assert.deepEqual(mine, rowsOf(`SELECT persona, count(*)::int AS n FROM runtimectl.${table} WHERE persona = 'ada' GROUP BY 1`, 'legacy'), table);
      assert.ok(Number(mine[0]?.n) > 0, table);
    }
    // ada, untouched by the writer above, reads back and exports exactly as the previous version exported it.
    const source = await openBackend(personaDir('ada'), 'postgres', { dsn, readonly: true });
    const target = personaDir('ada');
    const to = await openBackend(target, 'jsonl-fs');
    try {
      await copyPersistence(source, to, COPY_PARTS);
    } finally {
      await to.close();
      await source.close();
    }
    const expected = path.join(HERE, 'fixtures', 'legacy-postgres', 'exported', 'ada');
    for (const rel of fs.readdirSync(expected, { recursive: true }) as string[]) {
      const file = path.join(expected, rel);
      // The chain, its sealed segment, index and rollups, memory and proposals (the ledger's file depends on the source folder's ledger config).
      if (!fs.statSync(file).isFile() || rel.startsWith('orchestra')) continue;
      assert.deepEqual(fs.readFileSync(path.join(target, rel)), fs.readFileSync(file), rel);
    }
  });
});
