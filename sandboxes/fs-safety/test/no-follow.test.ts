/**
 * sandboxes/fs-safety/no-follow.ts, attacked the way sandboxed code in a session folder would: a
 * symbolic link where the kernel's file goes, a folder on the way replaced by a link, a hard
 * link to a file outside, a FIFO, and a race that swaps a folder for a link while the kernel
 * writes. Nothing outside is ever written or read; each attempt is one refusal line, or (for a
 * whole-file write) the planted entry is replaced, never written through.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { isKernelError } from '../../../kernel/errors.ts';
import { mkdirBeneath, openNoFollow, readFileBeneath, removeBeneath, writeFileBeneath } from '../no-follow.ts';
import { readRegularFile, writeRegularFile } from '../safe-open.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'rtc-nofollow-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A trusted anchor with a sandbox-writable folder in it, and a precious file outside. */
function setup(name: string): { anchor: string; session: string; precious: string } {
  const anchor = path.join(root, name, 'state');
  const session = path.join(anchor, 'ada', 'brain', 'sessions', 'c000001-command');
  mkdirSync(session, { recursive: true });
  const precious = path.join(root, name, 'runtimectl.js');
  writeFileSync(precious, 'the kernel\n');
  return { anchor, session, precious };
}

function refusal(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (isKernelError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  assert.fail('expected a refusal');
}

test('a symbolic link planted where a whole-file write goes is replaced as an entry, never written through', () => {
  const { anchor, session, precious } = setup('final-link');
  const file = path.join(session, 'manifest.json');
  symlinkSync(precious, file);
  writeFileBeneath(file, '{"ok":true}\n', { anchor });
  assert.equal(readFileSync(precious, 'utf8'), 'the kernel\n', 'the target was not touched');
  assert.equal(lstatSync(file).isSymbolicLink(), false);
  assert.equal(readFileSync(file, 'utf8'), '{"ok":true}\n');
  // a relative link and a dangling one the same
  rmSync(file);
  symlinkSync('../../../../../runtimectl.js', file);
  writeFileBeneath(file, 'x', { anchor, durable: true });
  assert.equal(readFileSync(precious, 'utf8'), 'the kernel\n');
  rmSync(file);
  symlinkSync(path.join(root, 'final-link', 'new-file'), file);
  writeFileBeneath(file, 'x', { anchor });
  assert.equal(existsSync(path.join(root, 'final-link', 'new-file')), false);
});

test('appends, exclusive creates and reads refuse a final link, with one line naming it', () => {
  const { anchor, session, precious } = setup('final-link-append');
  const file = path.join(session, 'stdout.txt');
  symlinkSync(precious, file);
  for (const attempt of [
    () => writeFileBeneath(file, 'more\n', { anchor, how: 'append' }),
    () => writeFileBeneath(file, 'more\n', { anchor, how: 'create' }),
    () => readFileBeneath(file, { anchor, maxBytes: 1024 }),
  ]) {
    const r = refusal(attempt);
    assert.equal(r.code, r.message.includes('already exists') ? 'RTC_ERR_FS_ACCESS' : 'RTC_ERR_FS_LINK_REFUSED', r.message);
    assert.doesNotMatch(r.message, /\n/);
  }
  assert.match(refusal(() => readFileBeneath(file, { anchor, maxBytes: 1024 })).message, /stdout\.txt is a symbolic link, and the kernel follows no link in a folder sandboxed code can write; it was not read$/);
  assert.equal(readFileSync(precious, 'utf8'), 'the kernel\n');
});

test('a folder on the way replaced by a link is refused, for every kind of access', () => {
  const { anchor, session, precious } = setup('parent-link');
  const outside = path.dirname(precious);
  // the session folder itself, and a folder above it, each swapped for a link to the outside
  rmSync(session, { recursive: true });
  symlinkSync(outside, session);
  const file = path.join(session, 'runtimectl.js');
  for (const attempt of [
    () => writeFileBeneath(file, 'owned', { anchor }),
    () => writeFileBeneath(file, 'owned', { anchor, how: 'append' }),
    () => readFileBeneath(file, { anchor, maxBytes: 1024 }),
    () => removeBeneath(file, { anchor }),
    () => mkdirBeneath(path.join(session, 'sub'), { anchor }),
    () => writeFileBeneath(path.join(session, 'deeper', 'x'), 'owned', { anchor, mkdir: true }),
  ]) {
    const r = refusal(attempt);
    assert.equal(r.code, 'RTC_ERR_FS_LINK_REFUSED', r.message);
    assert.match(r.message, /c000001-command is a symbolic link/);
  }
  assert.equal(readFileSync(precious, 'utf8'), 'the kernel\n');
  assert.equal(existsSync(path.join(outside, 'sub')), false);
  assert.equal(existsSync(path.join(outside, 'deeper')), false);
  // a link higher up (the sessions folder) the same
  rmSync(session);
  const sessions = path.dirname(session);
  renameSync(sessions, `${sessions}.real`);
  symlinkSync(outside, sessions);
  assert.equal(refusal(() => writeFileBeneath(path.join(sessions, 'runtimectl.js'), 'owned', { anchor })).code, 'RTC_ERR_FS_LINK_REFUSED');
  assert.equal(readFileSync(precious, 'utf8'), 'the kernel\n');
});

test('a hard link to a file outside is refused for reads and appends, and replaced (not written) by a whole-file write', () => {
  const { anchor, session, precious } = setup('hard-link');
  const file = path.join(session, 'sandbox.json');
  linkSync(precious, file);
  assert.match(refusal(() => writeFileBeneath(file, 'x', { anchor, how: 'append' })).message, /is a hard link \(it is also another path\)/);
  assert.equal(refusal(() => readFileBeneath(file, { anchor, maxBytes: 100 })).code, 'RTC_ERR_FS_LINK_REFUSED');
  writeFileBeneath(file, 'kernel record\n', { anchor });
  assert.equal(readFileSync(precious, 'utf8'), 'the kernel\n');
  assert.equal(readFileSync(file, 'utf8'), 'kernel record\n');
  assert.equal(lstatSync(file).nlink, 1);
});

test('a FIFO where the kernel reads or appends is refused at once, never waited on', () => {
  const { anchor, session } = setup('fifo');
  const file = path.join(session, 'manifest.json');
  execFileSync('mkfifo', [file]);
  const started = Date.now();
  assert.equal(refusal(() => readFileBeneath(file, { anchor, maxBytes: 100 })).code, 'RTC_ERR_FS_ACCESS');
  assert.equal(refusal(() => writeFileBeneath(file, 'x', { anchor, how: 'append' })).code, 'RTC_ERR_FS_ACCESS');
  assert.ok(Date.now() - started < 2000, 'no open blocked');
  // a whole-file write replaces the FIFO
  writeFileBeneath(file, 'x', { anchor });
  assert.equal(lstatSync(file).isFile(), true);
});

test('a folder swapped for a link in a tight loop while the kernel writes: nothing ever lands outside', async () => {
  const { anchor, session, precious } = setup('race');
  const outside = path.dirname(precious);
  const inner = path.join(session, 'out');
  mkdirSync(inner);
  // The attacker: swap `out` between a real folder and a link to the outside, as fast as it can.
  const swapper = spawn('/bin/sh', ['-c', `cd '${session}' && while :; do mv out out.real 2>/dev/null; ln -s '${outside}' out 2>/dev/null; rm -f out; mv out.real out 2>/dev/null; done`], { stdio: 'ignore' });
  let written = 0;
  let refused = 0;
  try {
    const deadline = Date.now() + 1500;
    while (Date.now() < deadline) {
      for (const how of ['replace', 'append'] as const) {
        try {
          writeFileBeneath(path.join(inner, 'runtimectl.js'), 'owned\n', { anchor, how });
          written++;
        } catch (error) {
          if (!isKernelError(error)) throw error;
          refused++;
        }
      }
      try {
        const { fd } = openNoFollow(path.join(inner, 'runtimectl.js'), 0, {});
        (await import('node:fs')).closeSync(fd);
      } catch {
        // refused or missing: either way not followed
      }
      await new Promise((r) => setImmediate(r));
    }
  } finally {
    swapper.kill('SIGKILL');
  }
  assert.ok(written + refused > 0);
  assert.equal(readFileSync(precious, 'utf8'), 'the kernel\n', `written ${written}, refused ${refused}: the outside file is untouched`);
});

test("the broker's strict open (safe-open noFollow) follows no link in any part of a resolved path", () => {
  const { session, precious } = setup('safe-open');
  const outside = path.dirname(precious);
  const sub = path.join(session, 'sub');
  symlinkSync(outside, sub);
  assert.throws(() => readRegularFile(path.join(sub, 'runtimectl.js'), 1024, { noFollow: true }), (error: Error & { reason?: string }) => error.reason === 'link');
  assert.throws(() => writeRegularFile(path.join(sub, 'runtimectl.js'), Buffer.from('owned'), { append: false, create: false, noFollow: true }), (error: Error & { reason?: string }) => error.reason === 'link');
  assert.throws(() => writeRegularFile(path.join(sub, 'made.txt'), Buffer.from('owned'), { append: false, create: true, noFollow: true }), (error: Error & { reason?: string }) => error.reason === 'link');
  assert.equal(readFileSync(precious, 'utf8'), 'the kernel\n');
  assert.equal(existsSync(path.join(outside, 'made.txt')), false);
  // without noFollow (Deno's own rule for a grant that follows links) the same read goes through
  assert.equal(readRegularFile(path.join(sub, 'runtimectl.js'), 1024).toString(), 'the kernel\n');
});
