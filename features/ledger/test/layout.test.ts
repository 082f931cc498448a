/**
 * The on-disk layout: bootstrapping creates the spec's tree once and is idempotent, the
 * config holds a relative database path, the executor environment names the local
 * database, and no path (config, symbolic link, dangling link) can aim the ledger outside
 * the persona's own directory.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { bootstrapLedger, ledgerEnv, openLedger, resolveInsidePersona } from '../index.ts';
import { BACKENDS, assertKernelError, personaDir, sha256File, tempDir } from './helpers.ts';

const CONFIG = 'orchestra/project/.orchestra/config.yaml';

for (const backend of BACKENDS) {
  describe(`layout on ${backend}`, () => {
    test('bootstrap creates the layout once, then reports it as existing', () => {
      const dir = personaDir('alice');
      const first = bootstrapLedger(dir, { backend });
      assert.deepEqual(first, { status: 'created', dbPath: 'orchestra/orchestra.db', backend, personaId: 'alice' });
      for (const part of ['orchestra/orchestra.db', CONFIG, 'orchestra/project/.orchestra/prompt.md']) assert.ok(fs.statSync(path.join(dir, part)).isFile(), part);
      for (const part of ['orchestra/worktrees', 'orchestra/logs']) assert.ok(fs.statSync(path.join(dir, part)).isDirectory(), part);
      assert.deepEqual(parse(fs.readFileSync(path.join(dir, CONFIG), 'utf8')), {
        project: 'alice-local',
        persona_id: 'alice',
        db_path: 'orchestra/orchestra.db',
        schema_version: 1,
      });
      const { store } = openLedger(dir);
      store.addTask({ title: 'survives re-bootstrap', by: 't', now: 1 });
      store.close();
      const digest = sha256File(path.join(dir, CONFIG));
      const dbDigest = sha256File(path.join(dir, 'orchestra/orchestra.db'));
      fs.rmSync(path.join(dir, 'orchestra/logs'), { recursive: true });
      const second = bootstrapLedger(dir);
      assert.deepEqual(second, { status: 'existing', dbPath: 'orchestra/orchestra.db', backend, personaId: 'alice' });
      assert.ok(fs.statSync(path.join(dir, 'orchestra/logs')).isDirectory(), 'a missing directory is restored');
      assert.equal(sha256File(path.join(dir, CONFIG)), digest, 'config is never rewritten');
      assert.equal(sha256File(path.join(dir, 'orchestra/orchestra.db')), dbDigest, 'the ledger is never rewritten');
      const reopened = openLedger(dir).store;
      assert.equal(reopened.backend, backend, 'an existing ledger keeps the backend that wrote it');
      assert.deepEqual(reopened.listTasks().map((t) => t.title), ['survives re-bootstrap']);
      reopened.close();
    });

    test('opening with the other backend is refused with the backend to use', () => {
      const dir = personaDir();
      bootstrapLedger(dir, { backend });
      const other = backend === 'sqlite' ? 'jsonl-fs' : 'sqlite';
      const digest = sha256File(path.join(dir, 'orchestra/orchestra.db'));
      assertKernelError(() => openLedger(dir, { backend: other }), 'RTC_ERR_LEDGER_BACKEND_MISMATCH', `is a ${backend} ledger`, `--backend ${backend}`);
      assertKernelError(() => bootstrapLedger(dir, { backend: other }), 'RTC_ERR_LEDGER_BACKEND_MISMATCH');
      assert.equal(sha256File(path.join(dir, 'orchestra/orchestra.db')), digest);
    });

    test('the ledger of a persona whose database path was pointed outside is never opened', () => {
      const dir = personaDir('bob');
      bootstrapLedger(dir, { backend });
      const configFile = path.join(dir, CONFIG);
      const original = fs.readFileSync(configFile, 'utf8');
      const outside = path.join(tempDir(), 'host-orchestra.db');
      for (const [dbPath, why] of [
        ['../carol/orchestra/orchestra.db', 'climbs out'],
        ['orchestra/../../x.db', 'climbs out'],
        [outside, 'must be relative'],
      ] as const) {
        fs.writeFileSync(configFile, original.replace('db_path: orchestra/orchestra.db', `db_path: ${dbPath}`));
        assert.throws(() => openLedger(dir, { backend }), (error: Error & { code?: string }) => {
          assert.ok(error.message.includes(why), error.message);
          return error.code === 'RTC_ERR_LEDGER_PATH_ESCAPE' || error.code === 'RTC_ERR_MANIFEST_INVALID';
        });
        assert.throws(() => ledgerEnv(dir));
      }
      assert.equal(fs.existsSync(outside), false);
      assert.equal(fs.existsSync(path.join(path.dirname(dir), 'carol')), false);
    });
  });
}

describe('path escape refusal', () => {
  test('a symbolic link out of the persona directory is refused for the ledger folder and the database file', () => {
    const outsideDir = tempDir();
    const dir = personaDir();
    fs.symlinkSync(outsideDir, path.join(dir, 'orchestra'));
    assertKernelError(() => bootstrapLedger(dir), 'RTC_ERR_LEDGER_PATH_ESCAPE', 'symbolic link', outsideDir);
    assert.deepEqual(fs.readdirSync(outsideDir), [], 'nothing was created outside');

    const dir2 = personaDir();
    bootstrapLedger(dir2);
    const db = path.join(dir2, 'orchestra/orchestra.db');
    const hostDb = path.join(outsideDir, 'host.db');
    fs.writeFileSync(hostDb, '');
    fs.rmSync(db);
    fs.symlinkSync(hostDb, db);
    assertKernelError(() => openLedger(dir2), 'RTC_ERR_LEDGER_PATH_ESCAPE', 'orchestra/orchestra.db');
    assertKernelError(() => ledgerEnv(dir2), 'RTC_ERR_LEDGER_PATH_ESCAPE');
    assert.equal(fs.readFileSync(hostDb, 'utf8'), '', 'the host database was not touched');

    fs.rmSync(db);
    fs.symlinkSync(path.join(outsideDir, 'missing.db'), db);
    assertKernelError(() => openLedger(dir2), 'RTC_ERR_LEDGER_PATH_ESCAPE', 'dangling');
    assert.equal(fs.existsSync(path.join(outsideDir, 'missing.db')), false);
  });

  test('a symbolic link that stays inside the persona directory is fine', () => {
    const dir = personaDir();
    fs.mkdirSync(path.join(dir, 'volumes/ledger'), { recursive: true });
    fs.symlinkSync(path.join(dir, 'volumes/ledger'), path.join(dir, 'orchestra'));
    assert.equal(bootstrapLedger(dir).status, 'created');
    assert.ok(fs.existsSync(path.join(dir, 'volumes/ledger/orchestra.db')));
  });

  test('resolveInsidePersona refuses the lexical escapes', () => {
    const dir = personaDir();
    assertKernelError(() => resolveInsidePersona(dir, '..'), 'RTC_ERR_LEDGER_PATH_ESCAPE', 'climbs out');
    assertKernelError(() => resolveInsidePersona(dir, '.'), 'RTC_ERR_LEDGER_PATH_ESCAPE');
    assertKernelError(() => resolveInsidePersona(dir, '/etc/passwd'), 'RTC_ERR_LEDGER_PATH_ESCAPE', 'absolute');
    assert.equal(resolveInsidePersona(dir, 'orchestra/x.db'), path.join(fs.realpathSync(dir), 'orchestra/x.db'));
  });
});

describe('config and environment', () => {
  test('ledgerEnv sets both Orchestra variables to the local database', () => {
    const dir = personaDir('dana');
    bootstrapLedger(dir);
    const env = ledgerEnv(dir);
    const expected = path.join(fs.realpathSync(dir), 'orchestra/orchestra.db');
    assert.deepEqual(env, { ORCHESTRA_DB: expected, ORCHESTRA_DB_PATH: expected });
  });

  test('a config naming another persona is refused', () => {
    const dir = personaDir('erin');
    bootstrapLedger(dir);
    const configFile = path.join(dir, CONFIG);
    fs.writeFileSync(configFile, fs.readFileSync(configFile, 'utf8').replace('persona_id: erin', 'persona_id: frank'));
    assertKernelError(() => openLedger(dir), 'RTC_ERR_LEDGER_CONFIG', 'frank', 'erin');
  });

  test('a malformed config is refused with the file and field', () => {
    const dir = personaDir('gus');
    bootstrapLedger(dir);
    fs.writeFileSync(path.join(dir, CONFIG), 'project: x\npersona_id: gus\ndb_path: orchestra/orchestra.db\nschema_version: one\n');
    assertKernelError(() => openLedger(dir), 'RTC_ERR_MANIFEST_INVALID', 'config.yaml', 'schema_version');
  });

  test('a persona id that is not one plain segment is refused', () => {
    const dir = personaDir('Not OK');
    assertKernelError(() => bootstrapLedger(dir), 'RTC_ERR_LEDGER_CONFIG', 'Not OK');
  });
});
