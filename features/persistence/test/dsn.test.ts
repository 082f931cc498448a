/**
 * Issue 24 item 7: the Postgres DSN is said the same way by every command that opens a
 * persona's state (--dsn, RUNTIMECTL_POSTGRES_DSN, and for run the profile's persistence
 * config), and a persona whose database is named nowhere is refused with one line naming
 * only the ways the command really has. On a real server (test/support/postgres.ts).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { COMMANDS } from '../../../cli/commands.ts';
import { closeBridges } from '../storage/postgres/pg-bridge.ts';
import { runCli } from '../../../test/support/cli.ts';
import { postgresSkipReason, startPostgres, type TestPostgres } from '../../../test/support/postgres.ts';
import { fakeEnv, tempDir } from '../../science-loop/test/helpers.ts';

const skip = postgresSkipReason();

test('every command that opens a persona\'s state takes --dsn, and says so in its help', () => {
  const takes = ['run', 'status', 'activity', 'verify', 'logs', 'replay', 'serve', 'tools list', 'tools call', 'mcp serve', 'inbox add', 'inbox list', 'proposals list', 'proposals show', 'proposals accept', 'ledger list', 'events repair', 'archive', 'persistence export', 'persistence status'];
  for (const name of takes) {
    const command = COMMANDS.find((c) => c.path.join(' ') === name);
    assert.ok(command, name);
    assert.match(command.usage, /--dsn DSN/, `${name} --help names --dsn`);
  }
  for (const name of ['sandbox run', 'deno', 'plugins list', 'dm send']) assert.doesNotMatch(COMMANDS.find((c) => c.path.join(' ') === name)!.usage, /--dsn/, name);
});

describe('the DSN on a real server', { skip }, () => {
  let pg: TestPostgres;
  before(async () => {
    pg = await startPostgres();
  });
  after(async () => {
    await closeBridges();
    pg?.stop();
  });

  function profile(dir: string, id: string, persistence: string): string {
    const file = path.join(dir, `${id}.yaml`);
    writeFileSync(file, `id: ${id}\nruntime: operon\npersistence: ${persistence}\n`);
    return file;
  }

  test('named nowhere: one line with every way run has; the others say theirs; --dsn and the variable both work', async () => {
    const dir = tempDir('rtc-dsn-');
    profile(dir, 'pgone', 'persistence.postgres');
    const o = { cwd: dir, env: fakeEnv() };
    const refused = await runCli(['run', '--persona', 'pgone.yaml', '--cycles', '1', '--state-dir', 'state'], o);
    assert.equal(refused.status, 1);
    assert.equal(refused.stderr.trimEnd().split('\n').length, 1, refused.stderr);
    assert.match(refused.stderr, /RTC_ERR_PERSONA_START: persona pgone: \S*pgone\.yaml: persistence: RTC_ERR_PERSISTENCE_CONFIG: persona pgone keeps its state in Postgres, but no database is named: pass --dsn DSN, set RUNTIMECTL_POSTGRES_DSN, or name it in the profile \(persistence: \{plugin: persistence\.postgres, dsn_env: VAR\}\)\n$/);

    const ran = await runCli(['run', '--persona', 'pgone.yaml', '--cycles', '1', '--state-dir', 'state', '--dsn', pg.dsn], o);
    assert.equal(ran.status, 0, ran.stderr);
    // A command that reads the state without the profile: --dsn or the variable, nothing else advised.
    const logs = await runCli(['logs', '--persona', 'pgone', '--state-dir', 'state', '--tail', 'all'], o);
    assert.notEqual(logs.status, 0);
    assert.match(logs.stdout + logs.stderr, /no database is named: pass --dsn DSN or set RUNTIMECTL_POSTGRES_DSN(?! or name it)/);
    for (const env of [{ ...o.env }, { ...o.env, RUNTIMECTL_POSTGRES_DSN: pg.dsn }]) {
      const argv = ['inbox', 'list', '--persona', 'pgone', '--state-dir', 'state', '--json', ...(env.RUNTIMECTL_POSTGRES_DSN ? [] : ['--dsn', pg.dsn])];
      const listed = await runCli(argv, { cwd: dir, env });
      assert.equal(listed.status, 0, listed.stderr);
      assert.equal(listed.stderr, '', 'the brain was read from the database');
    }
    const verified = await runCli(['verify', '--state-dir', 'state', '--dsn', pg.dsn], o);
    // The events were read from the database --dsn names (verify's ledger check of a Postgres persona is another matter).
    assert.match(verified.stdout, /^pgone\s+events\s+ok\s+2 event\(s\)/m, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /^pgone\s+persistence\s+ok\s+postgres/m);
    const usage = await runCli(['logs', '--persona', 'pgone', '--state-dir', 'state', '--dsn'], o);
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /--dsn needs a value/);
  });

  test('the profile names its database by a variable; --dsn overrides it; a password in the profile is refused', async () => {
    const dir = tempDir('rtc-dsn-profile-');
    profile(dir, 'pgtwo', '{ plugin: persistence.postgres, dsn_env: AGENTS_DB }');
    const run = (env: Record<string, string>, extra: string[] = []) => runCli(['run', '--persona', 'pgtwo.yaml', '--cycles', '1', '--state-dir', 'state', ...extra], { cwd: dir, env: fakeEnv(env) });
    const unset = await run({ RUNTIMECTL_POSTGRES_DSN: pg.dsn });
    assert.equal(unset.status, 1);
    assert.match(unset.stderr, /persona pgtwo: \S*pgtwo\.yaml: persistence\.dsn_env: \$AGENTS_DB \(persistence\.dsn_env\) is not set; set it to the database's DSN, or pass --dsn/);
    const fromProfile = await run({ AGENTS_DB: pg.dsn });
    assert.equal(fromProfile.status, 0, fromProfile.stderr);
    // The variable names a database that refuses the login; the flag wins over it.
    const wrong = await run({ AGENTS_DB: pg.wrongPasswordDsn });
    assert.equal(wrong.status, 1);
    assert.match(wrong.stderr, /refused the login/);
    const flagged = await run({ AGENTS_DB: pg.wrongPasswordDsn }, ['--dsn', pg.dsn]);
    assert.equal(flagged.status, 0, flagged.stderr);
    assert.match(flagged.stdout, /^pgtwo #2 /m, 'the same chain, continued (the refused login ran no cycle)');

    profile(dir, 'pgthree', `{ plugin: persistence.postgres, dsn: "${pg.dsn}" }`);
    const secret = await runCli(['run', '--persona', 'pgthree.yaml', '--cycles', '1', '--state-dir', 'state'], { cwd: dir, env: fakeEnv() });
    assert.equal(secret.status, 1);
    assert.match(secret.stderr, /RTC_ERR_MANIFEST_INVALID: pgthree\.yaml: persistence\.dsn: holds a password/);
    assert.doesNotMatch(secret.stderr, /rtc-app-secret/, 'the password is not printed');
  });
});
