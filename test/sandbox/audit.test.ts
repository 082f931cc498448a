/**
 * Issue 12, item 10: every check the broker makes is an audit event, refusals above all,
 * whichever rule refused: the plain grant, a special file (by path and through a link), a
 * strict-symlink escape, a loader variable, a redirect hop to an ungranted host, the
 * kernel's own files, a revoked grant, a binding. The test is structural: a script provokes
 * each refusal, and the NotCapable errors it saw must be exactly as many as the denied
 * events, with the permission, value and reason of each; and a NotCapable cannot be made
 * except as a Refusal the broker audits.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CapabilityBroker } from '../../kernel/broker/broker.ts';
import { DENO_EXTENSIONS } from '../../sandboxes/deno/index.ts';
import { PERSONA_BINDING_OPS } from '../../features/plugin-host/binding-ops.ts';
import { opTable } from '../../kernel/broker/extension.ts';
import { DenoOpError } from '../../kernel/broker/deno-error.ts';
import type { AuditEvent } from '../../kernel/broker/op.ts';
import { loadSandboxProfile } from '../../features/plugin-search/sandbox-profiles.ts';
import { flagsLayer } from '../../features/sandbox-run/permission-flags.ts';
import { brokerContext, profileLayer } from '../../kernel/broker/context.ts';
import { createScriptRunner } from '../../features/sandbox-run/runner/script-runner.ts';
import { check as denialsCheck } from '../../plugins/gate-check-denials/mod.ts';
import type { GateCheckInput, TestFileRun } from '../../kernel/contracts/gate-check.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'rtc-audit-'));
const work = path.join(root, 'work');
const outside = path.join(root, 'outside');
mkdirSync(work);
mkdirSync(outside);
writeFileSync(path.join(outside, 'secret.txt'), 'secret');
symlinkSync('/proc/self/environ', path.join(work, 'environ'));
symlinkSync(path.join(outside, 'secret.txt'), path.join(work, 'to-secret'));
const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'rtc-cache-'));
const events: AuditEvent[] = [];
const runner = await createScriptRunner({ cacheDir, audit: (e) => events.push(e) });

const server = http.createServer((req, res) => {
  const port = (server.address() as AddressInfo).port;
  // localhost is another host than 127.0.0.1 for the net permission
  if (req.url === '/away') res.writeHead(302, { location: `http://localhost:${port}/nowhere` }).end();
  else res.writeHead(200).end('ok');
});
let port = 0;
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(async () => {
  await runner.close();
  await new Promise((resolve) => server.close(resolve));
});

/** Runs `code` and returns the NotCapable messages it caught, and the denied events of the run. */
async function provoke(code: string, flags: string[], profile = 'default', env: Record<string, string> = {}) {
  events.length = 0;
  const file = path.join(work, 'provoke.js');
  writeFileSync(file, `const seen = [];\nconst t = async (f) => { try { await f(); } catch (e) { if (e.name === 'NotCapable') seen.push(e.message); else seen.push('other: ' + e.name + ': ' + e.message); } };\n${code}\nconsole.log(JSON.stringify(seen));\n`);
  const r = await runner.run({ file, args: [], permissionFlags: flags, cwd: work, env, profile });
  assert.equal(r.exitCode, 0, r.stderr);
  const seen = JSON.parse(r.stdout) as string[];
  return { seen, denied: events.filter((e) => e.decision === 'denied'), granted: events.filter((e) => e.decision === 'granted') };
}

test('each kind of refusal in the default profile is one denied event, with what and why', async () => {
  const { seen, denied } = await provoke(
    [
      "await t(() => Deno.readTextFile('/etc/hostname'));", // plain grant: no read outside work
      "await t(() => Deno.readTextFile('/proc/self/environ'));", // special file, by path
      "await t(() => Deno.readTextFile('environ'));", // special file, through a link
      "Deno.env.set('LD_PRELOAD', '/x.so'); await t(() => new Deno.Command('true').output()); Deno.env.delete('LD_PRELOAD');", // loader variable
      `await t(() => fetch('http://127.0.0.1:${port}/away'));`, // a redirect hop to an ungranted host
      "await Deno.permissions.revoke({ name: 'read', path: Deno.cwd() }); await t(() => Deno.readTextFile('to-secret'));", // revoked
      "await t(() => Deno.env.toObject());", // the whole env kind
    ].join('\n'),
    [`--allow-read=${work},/proc`, '--allow-write=' + work, '--allow-run=true', '--allow-env=LD_PRELOAD', `--allow-net=127.0.0.1:${port}`],
    'default',
    { PATH: '/usr/bin:/bin' },
  );
  assert.ok(seen.every((m) => !m.startsWith('other:')), JSON.stringify(seen));
  assert.equal(seen.length, 7, JSON.stringify(seen));
  assert.equal(denied.length, seen.length, `caught ${seen.length} NotCapable, audited ${denied.length} denials: ${JSON.stringify(denied)}`);
  const brief = denied.map((e) => [e.op, e.permission, e.reason ?? null]);
  assert.deepEqual(brief, [
    ['fs.readTextFile', 'read', null],
    ['fs.readTextFile', 'all', 'special-file'],
    ['fs.readTextFile', 'all', 'special-file'],
    ['run.output', 'run', 'loader-variable'],
    ['net.fetch', 'net', 'redirect'],
    ['fs.readTextFile', 'read', null],
    ['env.toObject', 'env', null],
  ]);
  assert.match(denied[2]!.value ?? '', /^\/proc\/\d+\/environ$/, 'the link refusal names what the link reaches');
  assert.equal(denied[4]!.value, `localhost:${port}`);
});

test('strict-symlink refusals and the kernel\'s own files are audited with their reason, granted checks too', async () => {
  const strict = await provoke("await t(() => Deno.readTextFile('to-secret'));\nawait t(() => Deno.lstat('to-secret'));", [`--allow-read=${work}`], 'community-draft');
  assert.deepEqual(strict.denied.map((e) => [e.permission, e.reason, e.value]), [['read', 'strict-symlink', path.join(outside, 'secret.txt')]]);
  assert.equal(strict.seen.length, 1);
  assert.ok(strict.granted.some((e) => e.reason === 'strict-symlink' && e.op === 'fs.stat'), 'the passing strict check of lstat was not audited');
  const key = path.join(cacheDir, 'integrity.key');
  const kernel = await provoke(`await t(() => Deno.readTextFile(${JSON.stringify(key)}));\nawait t(() => Deno.writeTextFile(${JSON.stringify(path.join(cacheDir, 'planted.js'))}, 'x'));`, ['-A']);
  assert.equal(kernel.seen.length, 2, JSON.stringify(kernel.seen));
  assert.deepEqual(kernel.denied.map((e) => [e.permission, e.reason]), [['all', 'kernel-file'], ['all', 'kernel-file']]);
});

test('a binding refusal is audited once, by the broker', async () => {
  const profile = loadSandboxProfile('default');
  const seen: AuditEvent[] = [];
  const broker = new CapabilityBroker(brokerContext({ subject: 'p', layers: [flagsLayer([], work), profileLayer(profile, work)], cwd: work, env: {}, profile, limits: profile.limits, audit: (e) => seen.push(e) }), opTable([PERSONA_BINDING_OPS, ...DENO_EXTENSIONS]));
  const answer = JSON.parse(await broker.async('binding.memory.read', '{}')) as { err?: { class: string } };
  assert.equal(answer.err?.class, 'NotCapable');
  assert.deepEqual(seen.map((e) => [e.decision, e.permission, e.value, e.reason]), [['denied', 'binding', 'memory', 'binding']]);
});

test('a NotCapable cannot be raised around the audit: only a Refusal is one', () => {
  assert.throws(() => new DenoOpError('NotCapable', 'sneaky'), /Refusal/);
});

test("the gate's denials check sees every kind of refusal", async () => {
  const { denied } = await provoke("await t(() => Deno.readTextFile('environ'));\nawait t(() => Deno.readTextFile('/proc/self/cmdline'));", ['-R']);
  // The denials check (a gate-check plugin) reads the tests check's runs, as the gate hands them over.
  const run = { test: 't_test.js', pass: 'pass-1', scratch: 's', permission_flags: ['-R'], exit_code: 0, ok: true, error: null, ended_on_limit: false, usage: {}, stdout: '', stderr: '', tests: [], audit: denied, audit_total: denied.length, denied: denied.length } as unknown as TestFileRun;
  const outcome = denialsCheck({ earlier: { tests: { status: 'passed', reason: '', output: { runs: [run] } } } } as unknown as GateCheckInput);
  assert.equal(outcome.status, 'failed');
  assert.match(outcome.reason, /all ×2 \[fs\.readTextFile \/proc\/\d+\/environ \(special-file\), fs\.readTextFile \/proc\/self\/cmdline \(special-file\)\]/);
});
