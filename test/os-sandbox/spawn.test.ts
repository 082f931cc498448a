/**
 * `Deno.Command(...).spawn()` gets exactly the OS sandbox `output()` gets (run.ts
 * `osSandboxFor`): the same view of the file system planned from the script's grant, its own
 * pid namespace, no network of its own; the same refusals when the sandbox cannot be built;
 * and `kill()` reaches the command inside it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AuditEvent } from '../../kernel/broker/op.ts';
import { createScriptRunner, type ScriptRunner } from '../../features/sandbox-run/runner/script-runner.ts';
import { BWRAP_ENV } from '../../sandboxes/subprocess/os-sandbox/bwrap.ts';
import { NO_OS_SANDBOX } from '../support/os-sandbox.ts';

let runner: ScriptRunner;
let root: string;
const audit: AuditEvent[] = [];

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-spawn-box-'));
  runner = await createScriptRunner({ cacheDir: path.join(root, 'cache'), poolSize: 1, audit: (e) => void audit.push(e) });
});
after(async () => {
  await runner.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function run(name: string, body: string, flags: string[]) {
  const file = path.join(root, `${name}.ts`);
  fs.writeFileSync(file, body);
  audit.length = 0;
  return runner.run({ file, args: [], permissionFlags: flags, cwd: root, env: { PATH: '/usr/bin:/bin' }, profile: 'default', limits: { wallMs: 20_000 } });
}

// What a child sees: a file outside the grant, one inside, its pid, the host's home, the network.
const PROBE = (granted: string, outside: string) =>
  `cat ${outside} 2>/dev/null || echo no-outside; cat ${granted}; echo pid=$$; ls /root 2>/dev/null | head -1 || true; echo root=$?; echo proxy=\${HTTP_PROXY:-none}`;

test('spawn() sees what output() sees: the grant only, its own pid namespace, no network', { skip: NO_OS_SANDBOX }, async () => {
  const inside = path.join(root, 'inside');
  fs.mkdirSync(inside);
  fs.writeFileSync(path.join(inside, 'granted.txt'), 'granted-content\n');
  const outside = path.join(os.tmpdir(), `rtc-outside-${process.pid}.txt`);
  fs.writeFileSync(outside, 'outside-content\n');
  try {
    const probe = PROBE(path.join(inside, 'granted.txt'), outside);
    const result = await run(
      'view',
      `const args = ['-c', ${JSON.stringify(probe)}];
const out = await new Deno.Command('sh', { args, stdout: 'piped' }).output();
const child = new Deno.Command('sh', { args, stdout: 'piped' }).spawn();
const spawned = await child.output();
const dec = new TextDecoder();
console.log(JSON.stringify({ output: dec.decode(out.stdout), spawn: dec.decode(spawned.stdout), pid: child.pid }));`,
      ['--allow-run=sh', `--allow-read=${inside}`],
    );
    assert.equal(result.exitCode, 0, result.stderr);
    const seen = JSON.parse(result.stdout.trim().split('\n').pop()!) as { output: string; spawn: string; pid: number };
    assert.equal(seen.spawn, seen.output, 'the same view from both');
    assert.match(seen.spawn, /^no-outside\ngranted-content\n/, 'outside the grant is absent, inside is there');
    assert.ok(!seen.spawn.includes('outside-content'));
    const pid = Number(/pid=(\d+)/.exec(seen.spawn)![1]);
    assert.ok(pid < 10, `the child runs in its own pid namespace (pid ${pid})`);
    assert.match(seen.spawn, /proxy=none/, 'no net grant: no proxy, no network');
  } finally {
    fs.rmSync(outside, { force: true });
  }
});

test("kill() reaches the command inside the sandbox: a TERM it traps is its own to handle", { skip: NO_OS_SANDBOX }, async () => {
  const result = await run(
    'trap',
    `const child = new Deno.Command('sh', { args: ['-c', 'trap "echo got-term; exit 7" TERM; echo ready; while :; do sleep 0.05; done'], stdout: 'piped' }).spawn();
const reader = child.stdout.getReader();
const first = new TextDecoder().decode((await reader.read()).value);
child.kill('SIGTERM');
let rest = '';
for (;;) { const { value, done } = await reader.read(); if (done) break; rest += new TextDecoder().decode(value); }
console.log(JSON.stringify({ first, rest, status: await child.status }));`,
    ['--allow-run=sh'],
  );
  assert.equal(result.exitCode, 0, result.stderr);
  const seen = JSON.parse(result.stdout.trim().split('\n').pop()!) as { first: string; rest: string; status: { code: number; signal: string | null } };
  assert.equal(seen.first, 'ready\n');
  assert.equal(seen.rest, 'got-term\n', 'the command got the signal and handled it');
  assert.deepEqual({ code: seen.status.code, signal: seen.status.signal }, { code: 7, signal: null });
});

test('without a working bubblewrap, spawn() is refused NotSupported, audited, and never runs unsandboxed', async () => {
  const saved = process.env[BWRAP_ENV];
  process.env[BWRAP_ENV] = path.join(root, 'no-such-bwrap');
  try {
    const marker = path.join(root, 'ran-unsandboxed');
    const result = await run(
      'nobwrap',
      `try { new Deno.Command('sh', { args: ['-c', 'touch ${marker}'] }).spawn(); console.log('spawned'); } catch (e) { console.log((e as Error).name, (e as Error).message); }`,
      ['--allow-run=sh', `--allow-write=${root}`, `--allow-read=${root}`],
    );
    assert.equal(result.exitCode, 0, result.stderr);
    assert.match(result.stdout, /^NotSupported Failed to spawn 'sh': RTC_ERR_OSBOX_UNAVAILABLE: bubblewrap \(bwrap\) is not installed at /);
    assert.equal(fs.existsSync(marker), false);
    const denied = audit.filter((e) => e.decision === 'denied');
    assert.deepEqual(denied.map((e) => [e.op, e.permission, e.value, e.reason]), [['run.spawn', 'run', 'sh', 'os-sandbox']]);
  } finally {
    if (saved === undefined) delete process.env[BWRAP_ENV];
    else process.env[BWRAP_ENV] = saved;
  }
});

test('a grant the sandbox cannot express (write without read) is refused by spawn() as by output(): NotCapable, audited', async () => {
  const dir = path.join(root, 'wo');
  fs.mkdirSync(dir, { recursive: true });
  const result = await run(
    'writeonly',
    `for (const how of ['output', 'spawn'] as const) {
  try { const c = new Deno.Command('sh', { args: ['-c', 'true'] }); if (how === 'output') await c.output(); else await c.spawn().status; console.log(how, 'ran'); }
  catch (e) { console.log(how, (e as Error).name); }
}`,
    ['--allow-run=sh', `--allow-write=${dir}`],
  );
  assert.equal(result.exitCode, 0, result.stderr);
  assert.equal(result.stdout, 'output NotCapable\nspawn NotCapable\n');
  assert.deepEqual(audit.filter((e) => e.decision === 'denied').map((e) => [e.op, e.reason]), [['run.output', 'os-sandbox'], ['run.spawn', 'os-sandbox']]);
});
