import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { createScriptRunner } from '../../features/sandbox-run/runner/script-runner.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-pool-'));
const runner = await createScriptRunner({ cacheDir: mkdtempSync(path.join(os.tmpdir(), 'rtc-cache-')) });
after(() => runner.close());

function script(name: string, code: string): string {
  writeFileSync(path.join(dir, name), code);
  return name;
}

const run = (file: string, limits = {}) => runner.run({ file, args: [], permissionFlags: [], cwd: dir, env: {}, profile: 'default', limits });

test('a sandbox host process killed by a memory blow-up is reported and replaced; the next run is served', async () => {
  // WebAssembly memory is not counted by the isolate limit: only the RSS cap stops it.
  const wasm = script('wasm.js', 'const m = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); const pages = []; for (let i = 0; i < 60000; i += 256) { m.grow(256); new Uint8Array(m.buffer).fill(1, i * 65536); } console.log("grew");');
  const r = await run(wasm, { wallMs: 60000, cpuMs: 60000 });
  assert.notEqual(r.exitCode, 0);
  assert.ok(['RTC_ERR_SANDBOX_MEMORY', 'RTC_ERR_SANDBOX_CRASHED'].includes(r.error?.code ?? ''), JSON.stringify(r.error));
  const ok = await run(script('ok.js', 'console.log(6 * 7)'));
  assert.equal(ok.stdout, '42\n');
  assert.equal(ok.exitCode, 0);
});

test('a script that never yields is stopped by the CPU limit; wall limit stops one that sleeps forever', async () => {
  const loop = await run(script('loop.js', 'for (;;) {}'), { cpuMs: 300 });
  assert.equal(loop.error?.code, 'RTC_ERR_SANDBOX_CPU');
  const sleeper = await run(script('sleep.js', 'setInterval(() => {}, 50);'), { wallMs: 500 });
  assert.equal(sleeper.error?.code, 'RTC_ERR_SANDBOX_WALL');
  assert.match(sleeper.stderr, /RTC_ERR_SANDBOX_WALL: wall time limit of 500 ms exceeded/);
});

test('exit status and stdout follow deno run: Deno.exit, uncaught error, thrown non-Error', async () => {
  assert.equal((await run(script('exit.js', 'console.log("a"); Deno.exit(3); console.log("b");'))).exitCode, 3);
  const thrown = await run(script('throw.js', 'console.log("before"); throw "plain string";'));
  assert.deepEqual([thrown.exitCode, thrown.stdout], [1, 'before\n']);
  const flood = await run(script('flood.js', 'for (;;) console.log("x".repeat(1000));'), { outputBytes: 100000 });
  assert.equal(flood.error?.code, 'RTC_ERR_SANDBOX_OUTPUT');
});
