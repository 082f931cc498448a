/**
 * Issue 27 item 9a, from outside: descriptors the kernel holds without close-on-exec (ones its
 * own parent handed it: a file the sandbox must not see at 7, 40 and 200, a pipe at 63) never
 * reach a sandboxed program. (Node itself marks some low descriptors close-on-exec at start,
 * not the ones above: those reached bubblewrap's children before init.sh closed them.) The kernel is the real CLI (`runtimectl sandbox run`), started
 * with those descriptors; the script's child lists every descriptor of every process in its
 * sandbox (the command itself, the sandbox's init and bridge, anything it starts) and tries
 * to read through them. `output()` and `spawn()` both.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { NO_OS_SANDBOX } from '../support/os-sandbox.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-fds-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// Every descriptor of every process in the sandbox, and a read through each one above 2.
const LIST = `for p in /proc/[0-9]*; do for f in "$p"/fd/*; do n=\${f##*/}; echo "fd $\{p#/proc/} $n $(readlink "$f")"; done; done
for p in /proc/[0-9]*; do for n in 3 4 5 6 7 8 9 10 11 12 13 40 63 200; do if [ -f "$p/fd/$n" ] && head -c 64 "$p/fd/$n" 2>/dev/null | grep -q SECRET; then echo "read-secret $p $n"; fi; done; done`;

test('descriptors the kernel inherited reach no sandboxed program: output() and spawn(), every process in the sandbox', { skip: NO_OS_SANDBOX }, async () => {
  const secret = path.join(dir, 'kernel-secret.txt');
  writeFileSync(secret, 'SECRET kernel credential\n');
  const script = path.join(dir, 'list.ts');
  writeFileSync(
    script,
    `const args = ['-c', ${JSON.stringify(LIST)}];
const dec = new TextDecoder();
const out = await new Deno.Command('/bin/sh', { args, stdout: 'piped', stderr: 'piped' }).output();
console.log(dec.decode(out.stdout) + dec.decode(out.stderr));
const child = new Deno.Command('/bin/sh', { args, stdout: 'piped' }).spawn();
console.log(dec.decode((await child.output()).stdout));`,
  );
  {
    // bash opens them for the kernel and execs it: inherited, without close-on-exec
    const launch = 'exec "$@" 7<"$SECRET" 40<"$SECRET" 200<"$SECRET" 63> >(cat >/dev/null)';
    const child = spawn('/usr/bin/bash', ['-c', launch, 'bash', process.execPath, '--no-node-snapshot', path.join(ROOT, 'bin', 'runtimectl.js'), 'sandbox', 'run', '--allow-run=/bin/sh', script], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SECRET: secret },
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, err);
    const fds = out.split('\n').filter((l) => l.startsWith('fd '));
    assert.ok(fds.length > 6, `the listing ran: ${out}`);
    assert.doesNotMatch(out, /kernel-secret|read-secret/, 'no process in the sandbox holds or reads the kernel\'s descriptors');
    // the command itself holds only its standard three (and the directory it lists)
    const numbers = new Set(fds.map((l) => Number(l.split(' ')[2])));
    for (const n of [40, 63, 200]) assert.ok(!numbers.has(n), `descriptor ${n} is nowhere in the sandbox: ${fds.join('; ')}`);
  }
});
