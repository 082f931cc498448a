/**
 * Issue 24, item 4: every attempted effect is in the audit, whatever answered it first.
 * Written as an attacker writes them: each attempt is caught, so the script itself ends
 * well and only the audit can tell; each kind (read, write, net, env, run, ffi, sys) is
 * tried by every path that is answered before its permission check (bad arguments, a
 * program not found, a bad port, a redirect, an API the sandbox does not implement, a
 * permission request, the shim's own TypeErrors), alone, then all together in several
 * orders, behind an exhausted write quota, after the script exited, past a limit, inside
 * timers, microtasks and promise chains, at a module's top level, in both tiers, and under
 * replay. The structural test at the end holds every op the broker has to it: an op added
 * later without `attempts` fails it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CapabilityBroker } from '../../kernel/broker/broker.ts';
import type { AuditEvent } from '../../kernel/broker/op.ts';
import { DENO_EXTENSIONS } from '../../sandboxes/deno/index.ts';
import { PERSONA_BINDING_OPS } from '../../features/plugin-host/binding-ops.ts';
import { opTable } from '../../kernel/broker/extension.ts';
import { PERSISTENCE_BINDING_OPS } from '../../features/persistence/storage/binding-ops.ts';
import { GATE_BINDING_OPS } from '../../features/gate/binding-ops.ts';
import { RecordingTape, ReplayTape } from '../../features/cycle-recording/tape.ts';
import { loadSandboxProfile } from '../../features/plugin-search/sandbox-profiles.ts';
import { flagsLayer } from '../../features/sandbox-run/permission-flags.ts';
import { brokerContext, profileLayer } from '../../kernel/broker/context.ts';
import { createScriptRunner } from '../../features/sandbox-run/runner/script-runner.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'rtc-attempts-'));
const work = path.join(root, 'work');
mkdirSync(work);
const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'rtc-cache-'));
const events: AuditEvent[] = [];
const runner = await createScriptRunner({ cacheDir, audit: (e) => events.push(e) });

// A granted host that redirects where fetch will not follow: a bad port, a file: URL, an ungranted host.
const server = http.createServer((req, res) => {
  if (req.url === '/to-bad-port') res.writeHead(302, { location: 'http://127.0.0.1:9/x' }).end();
  else if (req.url === '/to-file') res.writeHead(302, { location: 'file:///etc/hostname' }).end();
  else if (req.url === '/big') res.writeHead(200, { 'content-length': '4096' }).end('x'.repeat(4096));
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

type Kind = 'read' | 'write' | 'net' | 'env' | 'run' | 'ffi' | 'sys';

/** One way to attempt a kind, with the value the audit must name (a pattern), or null for the whole kind. */
interface Variant {
  kind: Kind;
  what: string;
  code: string;
  value: RegExp | null;
  /** other kinds the same call attempts (an open to create a file is a read and a write) */
  also?: Kind[];
}

const VARIANTS = (): Variant[] => [
  { kind: 'read', what: 'a plain read', code: "Deno.readTextFileSync('/etc/hostname')", value: /^\/etc\/hostname$/ },
  { kind: 'read', what: 'an open whose options Deno refuses first', code: "Deno.openSync('/etc/hostname', { create: true })", value: /^\/etc\/hostname$/, also: ['write'] },
  { kind: 'read', what: 'fetch of a file: URL', code: "await fetch('file:///etc/hostname')", value: /^\/etc\/hostname$/ },
  { kind: 'read', what: 'a path with a NUL byte', code: "Deno.readTextFileSync('/etc/host\\0name')", value: /^\/etc\/hostname$/ },
  { kind: 'read', what: 'Deno.chdir (not implemented)', code: "Deno.chdir('/etc')", value: /^\/etc$/ },
  { kind: 'read', what: 'the empty path', code: "Deno.readTextFileSync('')", value: null },
  { kind: 'read', what: 'the async twins (readTextFile, stat, realPath, readDir)', code: "await Deno.readTextFile('/etc/hostname')", value: /^\/etc\/hostname$/ },
  { kind: 'read', what: 'stat, async', code: "await Deno.stat('/etc/hostname')", value: /^\/etc\/hostname$/ },
  { kind: 'read', what: 'readDir, async', code: "for await (const _ of Deno.readDir('/etc')) { /* nothing */ }", value: /^\/etc$/ },
  { kind: 'read', what: 'open, async, with options Deno refuses first', code: "await Deno.open('/etc/hostname', { create: true })", value: /^\/etc\/hostname$/, also: ['write'] },
  { kind: 'read', what: 'copyFile, async (the broker\'s async path)', code: "await Deno.copyFile('/etc/hostname', '/etc/rtc-copy')", value: /^\/etc\/hostname$/, also: ['write'] },
  { kind: 'write', what: 'a plain write', code: "Deno.writeTextFileSync('/etc/rtc-attempt', 'x')", value: /^\/etc\/rtc-attempt$/ },
  { kind: 'write', what: 'makeTempFile with a prefix Deno refuses first', code: "Deno.makeTempFileSync({ dir: '/etc', prefix: 'a/b' })", value: /^\/etc$/ },
  { kind: 'write', what: 'writeFile with data that is not bytes (a TypeError in the shim)', code: "Deno.writeFileSync('/etc/rtc-attempt', 'not bytes')", value: /^\/etc\/rtc-attempt$/ },
  { kind: 'write', what: 'chmod with a mode that is not a number', code: "Deno.chmodSync('/etc/rtc-attempt', 'x')", value: /^\/etc\/rtc-attempt$/ },
  { kind: 'write', what: 'writeFile, async, with data that is not bytes', code: "await Deno.writeFile('/etc/rtc-attempt', 'not bytes')", value: /^\/etc\/rtc-attempt$/ },
  { kind: 'write', what: 'mkdir, remove and rename, async', code: "await Deno.mkdir('/etc/rtc-dir')", value: /^\/etc\/rtc-dir$/ },
  { kind: 'write', what: 'rename, async', code: "await Deno.rename('/etc/rtc-a', '/etc/rtc-b')", value: /^\/etc\/rtc-b$/, also: ['read'] },
  { kind: 'write', what: 'a symlink (needs the whole kind)', code: "Deno.symlinkSync('/etc/passwd', 'link')", value: null, also: ['read'] },
  { kind: 'net', what: 'fetch to a bad port (a TypeError before the check)', code: "await fetch('http://example.com:9/')", value: /^example\.com:9$/ },
  { kind: 'net', what: 'a redirect to a bad port', code: 'await fetch(`http://127.0.0.1:${PORT}/to-bad-port`)', value: /^127\.0\.0\.1:9$/ },
  { kind: 'net', what: 'Deno.connect (not implemented)', code: "await Deno.connect({ hostname: 'example.com', port: 80 })", value: /^example\.com:80$/ },
  { kind: 'net', what: 'Deno.serve (not implemented)', code: "Deno.serve(() => new Response('x'))", value: /^0\.0\.0\.0:8000$/ },
  { kind: 'net', what: 'Deno.resolveDns (not implemented)', code: "await Deno.resolveDns('example.com', 'A', { nameServer: { ipAddr: '1.1.1.1', port: 53 } })", value: /^1\.1\.1\.1:53$/ },
  { kind: 'net', what: 'a WebSocket (not implemented)', code: "new WebSocket('wss://example.com/socket')", value: /^example\.com:443$/ },
  { kind: 'env', what: 'a plain read', code: "Deno.env.get('HOME')", value: /^HOME$/ },
  { kind: 'env', what: 'a name Deno refuses first', code: "Deno.env.get('')", value: /^$/ },
  { kind: 'env', what: 'the whole environment', code: 'Deno.env.toObject()', value: null },
  { kind: 'env', what: 'a permission request', code: "await Deno.permissions.request({ name: 'env', variable: 'HOME' })", value: /^HOME$/ },
  { kind: 'run', what: 'a program not on PATH (NotFound before the check)', code: "await new Deno.Command('sh').output()", value: /^sh$/ },
  { kind: 'run', what: 'an environment that is not strings', code: "await new Deno.Command('/bin/sh', { env: { X: 1 } }).output()", value: /^\/(usr\/)?bin\/sh$/ },
  { kind: 'run', what: 'args that are not an array (a TypeError in the shim)', code: "await new Deno.Command('/bin/sh', { args: 5 }).output()", value: /^\/(usr\/)?bin\/sh$/ },
  { kind: 'run', what: 'a piped stdin output() cannot take', code: "await new Deno.Command('/bin/sh', { stdin: 'piped' }).output()", value: /^\/(usr\/)?bin\/sh$/ },
  { kind: 'run', what: 'spawn()', code: "new Deno.Command('sh').spawn()", value: /^sh$/ },
  { kind: 'run', what: 'outputSync()', code: "new Deno.Command('/bin/sh').outputSync()", value: /^\/(usr\/)?bin\/sh$/ },
  { kind: 'run', what: 'Deno.kill (not implemented)', code: 'Deno.kill(1)', value: null },
  { kind: 'run', what: 'Deno.run (not implemented)', code: "Deno.run({ cmd: ['sh'] })", value: /^sh$/ },
  { kind: 'run', what: 'a permission request', code: "await Deno.permissions.request({ name: 'run', command: 'sh' })", value: /sh$/ },
  { kind: 'ffi', what: 'Deno.dlopen (not implemented)', code: "Deno.dlopen('/lib/x86_64-linux-gnu/libc.so.6', {})", value: /libc\.so\.6$/ },
  { kind: 'ffi', what: 'Deno.UnsafePointer.of', code: 'Deno.UnsafePointer.of(new Uint8Array(1))', value: null },
  { kind: 'ffi', what: 'new Deno.UnsafeCallback', code: "new Deno.UnsafeCallback({ parameters: [], result: 'void' }, () => {})", value: null },
  { kind: 'sys', what: 'Deno.hostname()', code: 'Deno.hostname()', value: /^hostname$/ },
  { kind: 'sys', what: 'Deno.osRelease()', code: 'Deno.osRelease()', value: /^osRelease$/ },
  { kind: 'sys', what: 'Deno.uid()', code: 'Deno.uid()', value: /^uid$/ },
  { kind: 'sys', what: 'Deno.networkInterfaces()', code: 'Deno.networkInterfaces()', value: /^networkInterfaces$/ },
  { kind: 'sys', what: 'a permission request', code: "await Deno.permissions.request({ name: 'sys', kind: 'hostname' })", value: /^hostname$/ },
  { kind: 'sys', what: 'a request for a kind Deno does not know (a TypeError in the shim)', code: "await Deno.permissions.request({ name: 'sys', kind: 'bogus' })", value: null },
];

const KINDS: Kind[] = ['read', 'write', 'net', 'env', 'run', 'ffi', 'sys'];

/** Each attempt inside its own try/catch: the script ends well whatever was refused. */
function caught(code: string): string {
  return `try { ${code}; } catch (_e) { /* swallowed */ }`;
}

interface Run {
  exitCode: number;
  stdout: string;
  stderr: string;
  error: { code?: string } | null;
  denied: AuditEvent[];
}

async function run(body: string, options: { profile?: string; flags?: string[]; writeQuota?: { maxBytes: number; maxEntries: number }; files?: Record<string, string>; tape?: RecordingTape | ReplayTape; limits?: { transferBytes?: number } } = {}): Promise<Run> {
  events.length = 0;
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(path.join(work, name), text);
  const file = path.join(work, 'attempt.ts');
  writeFileSync(file, `const PORT = ${port};\n${body}\nconsole.log('script done');\n`);
  const r = await runner.run({
    file,
    args: [],
    permissionFlags: options.flags ?? [`--allow-read=${work}`, `--allow-write=${work}`, `--allow-net=127.0.0.1:${port}`],
    cwd: work,
    env: { PATH: '' },
    profile: options.profile ?? 'trusted',
    ...(options.writeQuota ? { writeQuota: options.writeQuota } : {}),
    ...(options.tape ? { tape: options.tape } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, error: r.error, denied: events.filter((e) => e.decision === 'denied') };
}

function assertAttempted(r: Run, v: Variant, where: string): void {
  const found = r.denied.filter((e) => e.permission === v.kind && (v.value === null ? true : v.value.test(e.value ?? '')));
  assert.ok(found.length > 0, `${where}: ${v.kind}, ${v.what}: not in the audit (denied: ${JSON.stringify(r.denied.map((e) => [e.op, e.permission, e.value, e.reason]))}; stderr: ${r.stderr})`);
}

function assertEveryKind(r: Run, where: string): void {
  const kinds = new Set(r.denied.map((e) => e.permission));
  for (const kind of KINDS) assert.ok(kinds.has(kind), `${where}: no ${kind} attempt in the audit (${[...kinds].join(', ')})`);
}

test('each kind alone, inside try/catch, by every path answered before its check: the attempt is audited as denied (in-process tier)', async () => {
  for (const v of VARIANTS()) {
    const r = await run(caught(v.code));
    assert.equal(r.exitCode, 0, `${v.what}: ${r.stderr}`);
    assert.match(r.stdout, /script done/, `${v.what}: the script carried on`);
    assertAttempted(r, v, 'alone');
    // Nothing of another kind was invented for it.
    assert.deepEqual([...new Set(r.denied.map((e) => e.permission))].sort(), [v.kind, ...(v.also ?? [])].sort(), `${v.what}: ${JSON.stringify(r.denied)}`);
  }
});

test('the same attempts in the process tier (with a write quota, as the gate runs drafts): each kind is audited', async () => {
  const body = VARIANTS().map((v) => caught(v.code)).join('\n');
  const r = await run(body, { profile: 'default', writeQuota: { maxBytes: 1 << 20, maxEntries: 64 } });
  assert.equal(r.exitCode, 0, r.stderr);
  for (const v of VARIANTS()) assertAttempted(r, v, 'process tier');
});

test('all kinds in several orders: none hides another', async () => {
  const variants = VARIANTS();
  // Forward, reversed, and a fixed interleaving (each kind's variants spread apart).
  const orders = [variants, [...variants].reverse(), variants.map((_, i) => variants[(i * 7) % variants.length]!)];
  for (const [n, order] of orders.entries()) {
    const r = await run(order.map((v) => caught(v.code)).join('\n'));
    assert.equal(r.exitCode, 0, r.stderr);
    for (const v of order) assertAttempted(r, v, `order ${n}`);
  }
});

test('behind an exhausted write quota: the quota answers, and every later attempt of every kind is still audited', async () => {
  const body = [
    "let i = 0; try { for (;;) Deno.writeTextFileSync(`f${i++}`, 'x'.repeat(4096)); } catch (e) { console.log('quota: ' + e.code); }",
    ...VARIANTS().map((v) => caught(v.code)),
  ].join('\n');
  const r = await run(body, { profile: 'default', writeQuota: { maxBytes: 16384, maxEntries: 64 } });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, /quota: ENOSPC/);
  assert.ok(r.denied.some((e) => e.reason === 'write-quota'), 'the quota refusal is audited');
  for (const v of VARIANTS()) assertAttempted(r, v, 'after the quota');
});

test('after Deno.exit is caught, nothing is performed and every attempt the script goes on to make is audited', async () => {
  // After an exit, only the rest of the synchronous turn runs (the first await ends the run, as
  // the exit would in Deno): the attempts here are the synchronous ones.
  const sync = VARIANTS().filter((v) => !v.code.includes('await'));
  for (const profile of ['trusted', 'default']) {
    const body = ['try { Deno.exit(3); } catch (_e) { /* the exit is caught */ }', ...sync.map((v) => caught(v.code)), "try { Deno.writeTextFileSync('after-exit.txt', 'x'); } catch {}"].join('\n');
    const r = await run(body, { profile });
    assert.equal(r.exitCode, 3, `${profile}: the first exit stands`);
    for (const v of sync) assertAttempted(r, v, `${profile} after exit`);
    assertEveryKind(r, `${profile} after exit`);
    assert.ok(r.denied.some((e) => e.reason === 'after-exit' && e.permission === 'read' && e.value === '/etc/hostname'), `${profile}: ${JSON.stringify(r.denied)}`);
    assert.ok(events.some((e) => e.reason === 'after-exit' && e.permission === 'write' && e.value === path.join(work, 'after-exit.txt') && e.decision === 'granted'), 'a granted write after the exit is in the audit too');
    assert.equal(existsSync(path.join(work, 'after-exit.txt')), false, `${profile}: nothing was written after the exit`);
  }
});

test('an attempt whose arguments pass the transfer cap ends the run on the limit, and is audited (reason limit)', async () => {
  const r = await run("try { Deno.writeTextFileSync('/etc/rtc-huge', 'x'.repeat(2_000_000)); } catch (_e) {}", { profile: 'community-draft' });
  assert.equal(r.error?.code, 'RTC_ERR_SANDBOX_TRANSFER');
  assert.ok(r.denied.some((e) => e.permission === 'write' && e.value === '/etc/rtc-huge' && e.reason === 'limit'), JSON.stringify(r.denied));
  const env = await run("try { Deno.env.set('SECRET', 'x'.repeat(2_000_000)); } catch (_e) {}", { profile: 'community-draft' });
  assert.ok(env.denied.some((e) => e.permission === 'env' && e.value === 'SECRET' && e.reason === 'limit'), JSON.stringify(env.denied));
});

test('after a limit the script is answered (a response body past the transfer cap), every later attempt is still audited', async () => {
  const body = ["try { await (await fetch(`http://127.0.0.1:${PORT}/big`)).text(); } catch (e) { console.log('limit: ' + e.name); }", ...VARIANTS().map((v) => caught(v.code))].join('\n');
  const r = await run(body, { profile: 'default', limits: { transferBytes: 1024 } });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, /limit: InvalidData/);
  for (const v of VARIANTS()) assertAttempted(r, v, 'after the response cap');
});

test('inside timers, microtasks, promise chains, async generators and event listeners: every attempt is audited', async () => {
  const variants = VARIANTS();
  const fns = variants.map((v) => `async () => { ${v.code}; }`);
  const body = [
    `const fns = [${fns.join(',\n')}];`,
    'const quiet = (f) => Promise.resolve().then(f).catch(() => {});',
    // a third through timers, a third through microtasks, the rest through a chain, a generator and listeners
    'const timers = fns.filter((_, i) => i % 3 === 0).map((f, i) => new Promise((r) => setTimeout(() => quiet(f).then(r), i)));',
    'const micro = fns.filter((_, i) => i % 3 === 1).map((f) => new Promise((r) => queueMicrotask(() => quiet(f).then(r))));',
    'let chain = Promise.resolve();',
    'for (const f of fns.filter((_, i) => i % 3 === 2 && i % 2 === 0)) chain = chain.then(() => quiet(f));',
    'async function* gen() { for (const f of fns.filter((_, i) => i % 3 === 2 && i % 2 === 1)) yield quiet(f); }',
    'const target = new EventTarget();',
    'const heard = [];',
    "target.addEventListener('go', () => { heard.push(quiet(fns[0])); });",
    "target.dispatchEvent(new Event('go'));",
    'await Promise.all([...timers, ...micro, chain, (async () => { for await (const _ of gen()) {} })(), ...heard]);',
    'await Promise.all(fns.map(quiet));',
  ].join('\n');
  const r = await run(body);
  assert.equal(r.exitCode, 0, r.stderr);
  for (const v of variants) assertAttempted(r, v, 'async chains');
});

test("at a module's top level, in the main module and in one it imports: every attempt is audited", async () => {
  const imported = VARIANTS().filter((v) => v.kind === 'run' || v.kind === 'ffi' || v.kind === 'sys');
  const main = VARIANTS().filter((v) => !imported.includes(v));
  const r = await run(`import './lib.ts';\n${main.map((v) => caught(v.code)).join('\n')}`, {
    files: { 'lib.ts': `const PORT = ${port};\n${imported.map((v) => caught(v.code)).join('\n')}\nexport const loaded = true;\n` },
  });
  assert.equal(r.exitCode, 0, r.stderr);
  for (const v of VARIANTS()) assertAttempted(r, v, 'top level');
});

test('under replay, the same attempts are audited again, the unanswered ones too', async () => {
  const body = VARIANTS().filter((v) => !v.code.includes('PORT')).map((v) => caught(v.code)).join('\n');
  const tape = new RecordingTape();
  const recorded = await run(body, { tape });
  const replayed = await run(body, { tape: new ReplayTape(tape.effects, 'attempts test') });
  assert.equal(replayed.exitCode, 0, replayed.stderr);
  // The same attempts, in the same order; a check an op made while it ran is decided on the grant instead (reason replayed).
  const brief = (r: Run) => r.denied.map((e) => `${e.op} ${e.permission} ${e.value}`);
  assert.deepEqual(brief(replayed), brief(recorded));
  assertEveryKind(replayed, 'replay');
});

test('a query and a revocation attempt nothing; a request the grant covers is no refusal', async () => {
  const r = await run("await Deno.permissions.query({ name: 'run', command: 'sh' }); await Deno.permissions.query({ name: 'sys', kind: 'hostname' }); await Deno.permissions.revoke({ name: 'env' }); await Deno.permissions.request({ name: 'read', path: '.' });");
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(r.denied, [], 'querying and revoking attempt nothing; a request the grant covers is granted');
});

test('every op the broker has that reaches outside the isolate leaves its attempt in the audit, whatever its arguments', async () => {
  // Every op any composition serves: the Deno extensions, the persona's bindings, a gate run's and the storage bindings.
  const EVERY_OP = opTable([PERSONA_BINDING_OPS, ...DENO_EXTENSIONS, PERSISTENCE_BINDING_OPS, GATE_BINDING_OPS]);
  // Ops on a resource already granted (a file's or a child's rid, a fetch body), the script's own
  // clock and randomness, and the questions Deno answers without a permission.
  const effectFree = new Set([
    'fs.cwd', 'fs.umask', 'random.bytes', 'random.seed', 'clock.now', 'clock.monotonic', 'clock.origin', 'crypto.subtle',
    'permissions.query', 'permissions.revoke', 'net.read', 'net.close',
    'process.pid', 'process.ppid', 'process.noColor', 'process.mainModule', 'process.execPath',
    'run.read', 'run.write', 'run.closeStdin', 'run.wait', 'run.kill',
    // os.availableParallelism / navigator.hardwareConcurrency: Deno asks no permission for it
    'sys.parallelism',
  ]);
  // Requests attempt the kind they name, and nothing when they name none.
  const requests = new Set(['permissions.request', 'test.permissions']);
  const profile = loadSandboxProfile('default');
  const seen: AuditEvent[] = [];
  const broker = new CapabilityBroker(brokerContext({ subject: 'structural', layers: [flagsLayer([], work), profileLayer(profile, work)], cwd: work, env: { PATH: '' }, profile, limits: profile.limits, audit: (e) => seen.push(e) }), EVERY_OP);
  const wrongTypes = JSON.stringify({ path: 5, from: 5, to: 5, oldpath: 5, newpath: 5, url: 5, command: 5, name: 5, kind: 5, paths: 5, options: 5, dir: 5, s: 5 });
  const named = JSON.stringify({ path: '/etc/x\0', from: '', to: '/etc/y', oldpath: '/etc/a', newpath: '', url: 'http://example.com:9/', command: 'no-such-program-x', name: 'run', command2: 1, kind: 'nope', paths: ['/etc'], options: { create: true }, dir: '/etc', prefix: 'a/b', permissions: { run: ['sh'], sys: true } });
  for (const [name, op] of EVERY_OP) {
    if (effectFree.has(name) || name.startsWith('fs.file.')) {
      assert.equal(op.attempts, undefined, `${name} is listed as reaching nothing, but declares attempts`);
      continue;
    }
    for (const args of requests.has(name) ? [named] : ['{}', 'not json', wrongTypes, named]) {
      seen.length = 0;
      await broker.any(name, args);
      assert.ok(seen.some((e) => e.op === name && e.decision === 'denied'), `${name} with ${args.slice(0, 60)}: its attempt is not in the audit (op without attempts?)`);
    }
  }
});

test('node-style escapes reach nothing: no host call is made for them and nothing of the host comes back', async () => {
  // process is Deno's global (node:process over the broker), so each escape finds the
  // sandbox's own objects: empty native bindings, no require. (process.dlopen is an ffi attempt,
  // refused and audited like Deno.dlopen: the attempts tests above.)
  const body = [
    "const seen = {};",
    "const t = async (name, f) => { try { seen[name] = await f(); } catch (e) { seen[name] = e.name; } };",
    "await t('binding', () => Reflect.ownKeys(process.binding('spawn_sync')).length);",
    "await t('linkedBinding', () => Reflect.ownKeys(process._linkedBinding('fs')).length);",
    "await t('require', () => require(['child', 'process'].join('_')));",
    "await t('constructor escape', () => (function () {}).constructor('return process')() === globalThis.process);",
    "await t('Deno.internal', () => typeof Object.keys(Deno[Deno.internal]).join(','));",
    'console.log(JSON.stringify(seen));',
  ].join('\n');
  const r = await run(body, { profile: 'default' });
  assert.equal(r.exitCode, 0, `${r.stdout}\n${r.stderr}`);
  const seen = JSON.parse(r.stdout.trim().split('\n')[0]!) as Record<string, unknown>;
  assert.equal(seen.binding, 0, 'process.binding hands out nothing');
  assert.equal(seen.linkedBinding, 0, 'process._linkedBinding hands out nothing');
  // Deno: ReferenceError. Here a computed require() is the bundler's "Dynamic require ... is not
  // supported" Error (a literal one is Deno's ReferenceError: test/sandbox/node-builtins.test.ts).
  assert.match(String(seen.require), /Error$/, 'no require in a module');
  assert.equal(seen['constructor escape'], true, "the Function constructor's global is the sandbox's");
  assert.equal(seen['Deno.internal'], 'string', 'Deno[Deno.internal] holds only what Deno offers there');
  assert.deepEqual(events, [], 'none of them reached the broker: there is no host to reach');
});

test('a script that poisons the prototypes the shim uses cannot hide an attempt of an unsupported API', async () => {
  const body = [
    'Array.prototype.map = function () { return [{ kind: "nothing" }]; };',
    'Array.prototype[Symbol.iterator] = function* () {};',
    'Object.keys = () => [];',
    'String.prototype.toString = () => { throw new Error("no"); };',
    caught("Deno.dlopen('/lib/x86_64-linux-gnu/libc.so.6', {})"),
    caught("await Deno.connect({ hostname: 'example.com', port: 80 })"),
    caught('Deno.kill(1)'),
    caught("Deno.chdir('/etc')"),
  ].join('\n');
  const r = await run(body);
  assert.equal(r.exitCode, 0, r.stderr);
  for (const kind of ['ffi', 'net', 'run', 'read']) assert.ok(r.denied.some((e) => e.permission === kind && e.reason === 'unsupported'), `${kind}: ${JSON.stringify(r.denied)}`);
});
