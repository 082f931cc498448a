/**
 * The reference runtime's reading of the real Deno: `deno test --junit-path` on a file with
 * passing, ignored, failing and permission-narrowed tests gives each Deno.test's result, in
 * order, with the failure's first line. (The gate's end-to-end comparison with the sandbox is
 * in gate.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { findDeno, parseJunit } from '../reference-deno.ts';
import { REPO, tempDir } from './helpers.ts';

const deno = findDeno(process.env, REPO);

test("Deno's JUnit report becomes each test's result", { skip: deno === null && 'no Deno on this host' }, () => {
  const dir = tempDir();
  fs.writeFileSync(
    path.join(dir, 'mixed_test.ts'),
    [
      "Deno.test('adds', () => { if (1 + 1 !== 2) throw new Error('math'); });",
      "Deno.test({ name: 'skipped <one> & \"two\"', ignore: true, fn() {} });",
      "Deno.test('fails', () => { throw new Error('boom'); });",
      "Deno.test({ name: 'narrowed', permissions: { read: false }, async fn() { await Deno.readTextFile('/etc/hostname'); } });",
      '',
    ].join('\n'),
  );
  const report = path.join(dir, 'report.xml');
  try {
    execFileSync(deno!, ['test', '--no-prompt', '--no-config', '--no-lock', '--allow-read', `--junit-path=${report}`, 'mixed_test.ts'], { cwd: dir, env: { DENO_DIR: path.join(dir, 'deno'), HOME: dir, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' }, stdio: 'pipe' });
    assert.fail('deno test exits 1 when a test fails');
  } catch (error) {
    assert.equal((error as { status?: number }).status, 1);
  }
  const results = parseJunit(fs.readFileSync(report, 'utf8')).map(({ duration_ms: _d, ...r }) => r);
  assert.deepEqual(results, [
    { name: 'adds', result: 'ok' },
    { name: 'skipped <one> & "two"', result: 'ignored' },
    { name: 'fails', result: 'failed', error: 'Error: boom' },
    { name: 'narrowed', result: 'failed', error: 'NotCapable: Requires read access to "/etc/hostname", run again with the --allow-read flag' },
  ]);
});
