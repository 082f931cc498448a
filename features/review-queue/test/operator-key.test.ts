/**
 * The operator's private key is a secret file (features/review-queue/secret-file.ts): `operator init`
 * creates it 0600 in a 0700 folder in one step, never replaces one, never writes through a
 * planted link, refuses a folder others may write to, and a key others could read, or that
 * is not a regular file of this user's, is refused when it is read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { initOperator, loadOperatorKey, OPERATOR_HOME_ENV, OPERATOR_KEY_FILE } from '../operators.ts';
import { createSecretFile } from '../secret-file.ts';
import { isKernelError } from '../../../kernel/errors.ts';

function scratch(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'rtc-operator-key-'));
}

function refusedWith(pattern: RegExp, fn: () => unknown): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(isKernelError(error), String(error));
    assert.equal(error.code, 'RTC_ERR_REVIEW_OPERATOR');
    assert.ok(!error.message.includes('\n'), 'one line');
    assert.match(error.message, pattern);
    return true;
  });
}

test('operator init under umask 0 creates the key 0600 in a 0700 folder, leaves no temp file, and loads it back', () => {
  const root = scratch();
  const home = path.join(root, 'nested', 'runtimectl');
  const previous = process.umask(0);
  try {
    initOperator({ [OPERATOR_HOME_ENV]: home }, 'alice');
  } finally {
    process.umask(previous);
  }
  assert.equal(statSync(path.join(home, OPERATOR_KEY_FILE)).mode & 0o777, 0o600);
  assert.equal(statSync(home).mode & 0o777, 0o700);
  assert.deepEqual(readdirSync(home).sort(), [OPERATOR_KEY_FILE, 'operators.json']);
  assert.equal(loadOperatorKey({ [OPERATOR_HOME_ENV]: home }).name, 'alice');
  rmSync(root, { recursive: true, force: true });
});

test('a key is never replaced and never written through a planted link: the target stays as it was', () => {
  const root = scratch();
  const home = path.join(root, 'home');
  mkdirSync(home, { mode: 0o700 });
  const victim = path.join(root, 'victim.txt');
  writeFileSync(victim, 'not yours\n');
  symlinkSync(victim, path.join(home, OPERATOR_KEY_FILE));
  refusedWith(/already holds an operator key|already exists/, () => initOperator({ [OPERATOR_HOME_ENV]: home }, 'alice'));
  assert.equal(readFileSync(victim, 'utf8'), 'not yours\n');
  // createSecretFile itself, whose existence check is the link(2) (no check-then-write race):
  refusedWith(/already exists; a secret is never replaced/, () => createSecretFile(path.join(home, OPERATOR_KEY_FILE), 'x', 'RTC_ERR_REVIEW_OPERATOR'));
  assert.equal(readFileSync(victim, 'utf8'), 'not yours\n');
  assert.deepEqual(readdirSync(home), [OPERATOR_KEY_FILE], 'no temp file left behind');
  rmSync(root, { recursive: true, force: true });
});

test('a folder others may write to, or a link standing for the folder, is refused before any key is made', () => {
  const root = scratch();
  const open = path.join(root, 'open');
  mkdirSync(open);
  chmodSync(open, 0o777);
  refusedWith(/others may write in this folder \(mode 777\).*chmod go-w/, () => initOperator({ [OPERATOR_HOME_ENV]: open }, 'alice'));
  assert.deepEqual(readdirSync(open), []);
  const real = path.join(root, 'real');
  mkdirSync(real, { mode: 0o700 });
  const linked = path.join(root, 'linked');
  symlinkSync(real, linked);
  refusedWith(/is not a folder \(a link or a file stands there\)/, () => initOperator({ [OPERATOR_HOME_ENV]: linked }, 'alice'));
  assert.deepEqual(readdirSync(real), []);
  rmSync(root, { recursive: true, force: true });
});

test('reading: a key readable by others, a key that is a link, or one owned by another user is refused in one line', () => {
  const root = scratch();
  const home = path.join(root, 'home');
  const env = { [OPERATOR_HOME_ENV]: home };
  initOperator(env, 'alice');
  const key = path.join(home, OPERATOR_KEY_FILE);
  for (const mode of [0o640, 0o604, 0o644]) {
    chmodSync(key, mode);
    refusedWith(new RegExp(`readable by others \\(mode ${mode.toString(8)}\\); run "chmod 600 `), () => loadOperatorKey(env));
  }
  chmodSync(key, 0o600);
  const moved = path.join(root, 'elsewhere.json');
  writeFileSync(moved, readFileSync(key), { mode: 0o600 });
  rmSync(key);
  symlinkSync(moved, key);
  refusedWith(/not a regular file/, () => loadOperatorKey(env));
  rmSync(key);
  writeFileSync(key, readFileSync(moved), { mode: 0o600 });
  assert.equal(loadOperatorKey(env).name, 'alice');
  if (process.getuid?.() === 0) {
    chownSync(key, 4242, 4242);
    refusedWith(/belongs to uid 4242, not this user/, () => loadOperatorKey(env));
  }
  assert.ok(existsSync(key) && lstatSync(key).isFile());
  rmSync(root, { recursive: true, force: true });
});
