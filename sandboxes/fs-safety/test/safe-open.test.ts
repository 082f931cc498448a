/**
 * The safe-open helper (sandboxes/fs-safety/safe-open.ts) every broker file op uses, with
 * the capped read it builds on (kernel/storage/safe-read.ts's readRegularFile, the one the
 * kernel's own persona reads use): it never blocks and never reads without bound.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { readRegularFile, UnsafeFileError, writeRegularFile } from '../safe-open.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-safe-open-'));
const at = (name: string) => path.join(dir, name);
const refused = (reason: string) => (e: unknown) => e instanceof UnsafeFileError && e.reason === reason;

test('a FIFO, a tty-like device, /dev/zero and /dev/stdin are refused before they are opened, a directory is EISDIR', () => {
  execFileSync('mkfifo', [at('fifo')]);
  // no writer: an open for reading would block without O_NONBLOCK; a read of a pipe never ends
  assert.throws(() => readRegularFile(at('fifo'), 1024), refused('not-regular'));
  assert.throws(() => writeRegularFile(at('fifo'), Buffer.from('x'), { append: false, create: false }), refused('not-regular'));
  for (const device of ['/dev/zero', '/dev/urandom', '/dev/stdin']) assert.throws(() => readRegularFile(device, 1024), (e: unknown) => e instanceof UnsafeFileError && e.reason === 'not-regular', device);
  assert.throws(() => readRegularFile(dir, 1024), (e: unknown) => (e as NodeJS.ErrnoException).code === 'EISDIR');
  // an accepted device is read (it must never block: /dev/null)
  assert.equal(readRegularFile('/dev/null', 1024, { acceptDevice: (s) => s.isCharacterDevice() && s.rdev === statSync('/dev/null').rdev }).length, 0);
});

test('a file past the cap is refused from its size without being read, even a 4 GiB sparse one', () => {
  writeFileSync(at('huge'), '');
  truncateSync(at('huge'), 4 * 1024 ** 3);
  assert.throws(() => readRegularFile(at('huge'), 1024 * 1024), refused('too-large'));
  writeFileSync(at('small'), 'twelve bytes');
  assert.equal(readRegularFile(at('small'), 12).toString(), 'twelve bytes');
  assert.throws(() => readRegularFile(at('small'), 11), refused('too-large'));
});

test('the file opened must be the inode the caller checked: a swap in between is refused', () => {
  writeFileSync(at('a'), 'a');
  writeFileSync(at('b'), 'b');
  const checked = statSync(at('a'));
  assert.throws(() => readRegularFile(at('b'), 10, { stats: checked }), refused('changed'));
});

test('noFollow refuses a link in the last component; a new file is created without following a planted link', () => {
  writeFileSync(at('target'), 'kept');
  symlinkSync(at('target'), at('link'));
  assert.throws(() => readRegularFile(at('link'), 10, { noFollow: true }), refused('not-regular'));
  // create: O_EXCL|O_NOFOLLOW, so a link planted where the new file goes is never written through
  assert.throws(() => writeRegularFile(at('link'), Buffer.from('changed'), { append: false, create: true }), (e: unknown) => (e as NodeJS.ErrnoException).code === 'EEXIST');
  assert.equal(readFileSync(at('target'), 'utf8'), 'kept');
  writeRegularFile(at('new'), Buffer.from('fresh'), { append: false, create: true, mode: 0o600 });
  assert.equal(readFileSync(at('new'), 'utf8'), 'fresh');
  assert.equal(lstatSync(at('new')).mode & 0o777, 0o600 & ~process.umask());
  // an existing file is truncated only after its descriptor checked out, and appended to
  writeRegularFile(at('new'), Buffer.from('ab'), { append: false, create: false });
  writeRegularFile(at('new'), Buffer.from('cd'), { append: true, create: false });
  assert.equal(readFileSync(at('new'), 'utf8'), 'abcd');
});
