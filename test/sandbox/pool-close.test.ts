/**
 * close() leaves no sandbox host process behind. The pool replaces a process that dies (a
 * run that ended on a limit retires its process too); a replacement still starting when
 * close() is called must be stopped as well: it once outlived close() and kept the kernel
 * process (and a CI run) from ever exiting. Children are read from /proc (Linux).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { createScriptRunner } from '../../features/sandbox-run/runner/script-runner.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-pool-close-'));
const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'rtc-cache-'));
writeFileSync(path.join(dir, 'ok.js'), 'console.log(6 * 7)');
writeFileSync(path.join(dir, 'flood.js'), 'for (;;) console.log("x".repeat(1000));');

/** This process's live child pids (sandbox host processes; esbuild's service is excluded by name). */
function hostChildren(): number[] {
  const pids: number[] = [];
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    const text = readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8').trim();
    for (const pid of text ? text.split(/\s+/).map(Number) : []) {
      let cmdline = '';
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        continue; // gone meanwhile
      }
      if (!cmdline.includes('esbuild')) pids.push(pid);
    }
  }
  return pids;
}

async function until<T>(probe: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const found = probe();
    if (found !== undefined) return found;
    await sleep(5);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const run = (runner: Awaited<ReturnType<typeof createScriptRunner>>, file: string, limits = {}) =>
  runner.run({ file, args: [], permissionFlags: [], cwd: dir, env: {}, profile: 'default', limits });

test('close() while a replacement host process is starting leaves no process behind', async () => {
  const runner = await createScriptRunner({ cacheDir });
  assert.equal((await run(runner, 'ok.js')).stdout, '42\n');
  const [host] = hostChildren();
  assert.ok(host, 'the pool keeps a warm host process');
  process.kill(host, 'SIGKILL');
  // The pool notices the death and starts a replacement; close while it is still starting.
  await until(() => hostChildren().find((pid) => pid !== host), 'the replacement process');
  await runner.close();
  await sleep(1500); // past the replacement's start, and the 1 s stop grace
  assert.deepEqual(hostChildren(), [], 'a sandbox host process outlived close()');
});

test('a run that ended on a limit, then close() at once: no process is left', async () => {
  const runner = await createScriptRunner({ cacheDir });
  const flood = await run(runner, 'flood.js', { outputBytes: 10_000 });
  assert.equal(flood.error?.code, 'RTC_ERR_SANDBOX_OUTPUT');
  await runner.close();
  await sleep(1500);
  assert.deepEqual(hostChildren(), [], 'a sandbox host process outlived close()');
});
