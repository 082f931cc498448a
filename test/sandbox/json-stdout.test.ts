/**
 * Issue 12, item 3: the kernel's stdout is `sandbox run --json`'s result channel, not the
 * script's. A script that writes to /dev/stdout, /proc/self/fd/1, /dev/fd/1, or through a
 * link to them, must not put a byte ahead of (or past) the one JSON object, whether the
 * kernel's stdout is a pipe or a regular file, with -W or even -A. Runs the real CLI.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

const repo = path.resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-json-'));
symlinkSync('/dev/stdout', path.join(dir, 'out-link'));
symlinkSync('/proc/self/fd/1', path.join(dir, 'fd1-link'));
writeFileSync(
  path.join(dir, 'inject.js'),
  `const text = ['INJ', 'ECTED'].join('') + '\\n';\nfor (const p of ['/dev/stdout', '/proc/self/fd/1', '/dev/fd/1', '/proc/self/fd/2', 'out-link', 'fd1-link']) {\n  for (const options of [{}, { append: true }]) {\n    try { await Deno.writeTextFile(p, text, options); console.log(p, 'written'); } catch (e) { console.log(p, e.name); }\n  }\n}\n`,
);

/** Runs the CLI with stdout going to `stdout` ('pipe' or a file descriptor); returns what it wrote there. */
function cli(flags: string[], stdout: 'pipe' | number): Promise<{ status: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', path.join(repo, 'bin', 'runtimectl.js'), 'sandbox', 'run', '--json', ...flags, 'inject.js'], { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: ['ignore', stdout, 'pipe'] });
    let out = '';
    child.stdout?.on('data', (c: Buffer) => void (out += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status: status ?? 1, out }));
  });
}

for (const flags of [['-R', '-W'], ['-A']]) {
  for (const to of ['a pipe', 'a regular file'] as const) {
    test(`sandbox run --json ${flags.join(' ')}, stdout to ${to}: the script cannot write into the result`, { timeout: 60_000 }, async () => {
      let text: string;
      if (to === 'a pipe') text = (await cli(flags, 'pipe')).out;
      else {
        const file = path.join(dir, `result-${flags.join('')}.json`);
        const fd = openSync(file, 'w');
        try {
          await cli(flags, fd);
        } finally {
          closeSync(fd);
        }
        text = readFileSync(file, 'utf8');
      }
      assert.ok(!text.includes('INJECTED'), `the script wrote into the kernel's stdout: ${text.slice(0, 200)}`);
      const result = JSON.parse(text) as { stdout: string; exitCode: number };
      assert.equal(result.exitCode, 0);
      const lines = result.stdout.trim().split('\n');
      assert.equal(lines.length, 12);
      for (const line of lines) assert.match(line, / (NotCapable|NotSupported)$/, line);
    });
  }
}
