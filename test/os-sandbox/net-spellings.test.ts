/**
 * Issue 27 item 7, from outside: a denied address spelled every way the WHATWG URL parser,
 * inet_aton and IPv6 accept, and a granted name that resolves to it, reach nothing, neither
 * through the OS sandbox's proxy (CONNECT and absolute-form, from a real sandboxed child too)
 * nor through `fetch` (first request and redirect hops). The grant's own entries are read in
 * the same one spelling (`--allow-net=127.1:P` grants 127.0.0.1:P).
 */
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { canonicalHost } from '../../kernel/permissions/net-address.ts';
import { flagsLayer } from '../../features/sandbox-run/permission-flags.ts';
import { PermissionGate } from '../../kernel/permissions/gate.ts';
import { createScriptRunner, type ScriptRunner } from '../../features/sandbox-run/runner/script-runner.ts';
import { gateNetPolicy, NetProxy } from '../../sandboxes/subprocess/os-sandbox/net-proxy.ts';
import { NO_OS_SANDBOX } from '../support/os-sandbox.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-net-spell-'));
let denied: http.Server;
let allowed: http.Server;
let deniedPort = 0;
let allowedPort = 0;
const hits: string[] = [];
let runner: ScriptRunner;
/** a name of this machine (not `localhost`) and the address it resolves to, when it resolves */
let named: { name: string; address: string } | undefined;

/** Every spelling of 127.0.0.1 (and of the loopback) a denied address might be tried in. */
const SPELLINGS = [
  '127.0.0.1', '127.1', '127.0.1', '2130706433', '0x7f000001', '0x7F.0.0.1', '0177.0.0.1', '0177.0.0.01', '127.000.000.001', '0x7f.1',
  '127.0.0.1.', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:127.0.0.1]', '[0:0:0:0:0:FFFF:7F00:0001]', '[::127.0.0.1]',
  '[::1]', '[0:0:0:0:0:0:0:1]', '0.0.0.0', '0', '[::]', 'localhost', 'LOCALHOST', 'localhost.', 'sub.localhost',
];

before(async () => {
  const serve = (tag: string) =>
    http.createServer((req, res) => {
      hits.push(`${tag} ${req.method} ${req.url} host=${req.headers.host}`);
      if (req.url?.startsWith('/redirect-to/')) {
        res.writeHead(302, { location: decodeURIComponent(req.url.slice('/redirect-to/'.length)) }).end();
        return;
      }
      res.end(`hello from ${tag}`);
    });
  denied = serve('denied');
  allowed = serve('allowed');
  await new Promise<void>((r) => denied.listen(0, '0.0.0.0', r));
  await new Promise<void>((r) => allowed.listen(0, '0.0.0.0', r));
  deniedPort = (denied.address() as AddressInfo).port;
  allowedPort = (allowed.address() as AddressInfo).port;
  runner = await createScriptRunner({ cacheDir: path.join(root, 'cache'), poolSize: 1 });
  try {
    const name = os.hostname();
    const address = (await lookup(name)).address;
    if (name !== 'localhost' && canonicalHost(name) === name.toLowerCase()) named = { name, address };
  } catch {
    named = undefined;
  }
});
after(async () => {
  await runner.close();
  denied.close();
  allowed.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function policyOf(flags: string[]) {
  const gate = new PermissionGate([flagsLayer(flags, root)]);
  const audited: string[] = [];
  return { audited, policy: gateNetPolicy((hp, aliases) => gate.query('net', hp, aliases).state, (hp, granted) => void audited.push(`${granted ? 'granted' : 'denied'} ${hp}`)) };
}

/** One request to the proxy over its Unix socket: CONNECT authority, or an absolute-form GET; the status. */
function throughProxy(proxy: NetProxy, how: 'connect' | 'get', target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req =
      how === 'connect'
        ? http.request({ socketPath: proxy.socketPath, method: 'CONNECT', path: target })
        : http.request({ socketPath: proxy.socketPath, method: 'GET', path: `http://${target}/probe`, headers: { host: target } });
    req.on('connect', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

test('the proxy: every spelling of a denied address, and a name resolving to it, is refused; CONNECT and absolute-form alike', async () => {
  const { policy, audited } = policyOf(['--allow-net', '--deny-net=127.0.0.1']);
  const proxy = await NetProxy.start(policy);
  try {
    hits.length = 0;
    const targets = [...SPELLINGS, ...(named ? [named.name] : [])];
    for (const spelling of targets) {
      for (const how of ['connect', 'get'] as const) {
        const status = await throughProxy(proxy, how, `${spelling}:${deniedPort}`);
        assert.ok(status === 403 || status === 400, `${how} ${spelling}: status ${status}`);
      }
    }
    // a zone id, userinfo, a path: not an address at all
    for (const odd of [`[fe80::1%25lo]:${deniedPort}`, `[fe80::1%lo]:${deniedPort}`, `user@127.0.0.1:${deniedPort}`, `127.0.0.1/x:${deniedPort}`]) {
      assert.ok([400, 403].includes(await throughProxy(proxy, 'connect', odd)), odd);
    }
    assert.deepEqual(hits, [], 'nothing reached the denied service');
    // every decision audited: a spelling is denied as the address it is; a name is granted as a name, then its answer denied
    audited.forEach((a, i) => assert.ok(a.startsWith('denied') || (named !== undefined && a === `granted ${named.name.toLowerCase()}:${deniedPort}` && audited[i + 1]?.startsWith('denied ')), audited.join('; ')));
  } finally {
    await proxy.close();
  }
  if (!named) return;
  // The name that resolves to a denied address, with nothing denying the name itself: refused after the lookup.
  const byAddress = policyOf(['--allow-net', `--deny-net=${named.address}`]);
  const proxy2 = await NetProxy.start(byAddress.policy);
  try {
    assert.equal(await throughProxy(proxy2, 'connect', `${named.name}:${deniedPort}`), 403);
    assert.equal(await throughProxy(proxy2, 'get', `${named.name}:${deniedPort}`), 403);
    assert.deepEqual(hits, []);
    assert.ok(byAddress.audited.includes(`granted ${named.name}:${deniedPort}`) && byAddress.audited.includes(`denied ${canonicalHost(named.address)}:${deniedPort}`), byAddress.audited.join('; '));
  } finally {
    await proxy2.close();
  }
});

test('the proxy: a grant written in another spelling grants the same address, and the connection keeps the name the client asked for', async () => {
  const { policy } = policyOf([`--allow-net=0x7f000001:${allowedPort}`]);
  const proxy = await NetProxy.start(policy);
  try {
    hits.length = 0;
    assert.equal(await throughProxy(proxy, 'connect', `127.1:${allowedPort}`), 200);
    assert.equal(await throughProxy(proxy, 'get', `[::ffff:127.0.0.1]:${allowedPort}`), 200);
    assert.equal(await throughProxy(proxy, 'get', `127.0.0.1:${deniedPort}`), 403, 'another port is not granted');
    assert.deepEqual(hits, [`allowed GET /probe host=[::ffff:127.0.0.1]:${allowedPort}`]);
  } finally {
    await proxy.close();
  }
});

async function runScript(name: string, body: string, flags: string[]) {
  const file = path.join(root, `${name}.ts`);
  fs.writeFileSync(file, body);
  return runner.run({ file, args: [], permissionFlags: flags, cwd: root, env: { PATH: '/usr/bin:/bin' }, profile: 'default', limits: { wallMs: 60_000 } });
}

const FETCH_ALL = (urls: string[]) => `
for (const url of ${JSON.stringify(urls)}) {
  try {
    const r = await fetch(url);
    console.log('REACHED', url, r.status, await r.text());
  } catch (e) {
    console.log('refused', url, e.name);
  }
}`;

test('fetch: every spelling of a denied address, and a name resolving to it, is NotCapable; nothing reaches it', async () => {
  hits.length = 0;
  const urls = [...SPELLINGS, ...(named ? [named.name] : [])].map((s) => `http://${s}:${deniedPort}/x`);
  const result = await runScript('fetch-spellings', FETCH_ALL(urls), ['--allow-net', '--deny-net=127.0.0.1']);
  assert.equal(result.exitCode, 0, result.stderr);
  assert.doesNotMatch(result.stdout, /REACHED/);
  for (const url of urls) assert.match(result.stdout, new RegExp(`^refused ${url.replace(/[.[\]]/g, '\\$&')} (NotCapable|TypeError)$`, 'm'));
  // the loopback spellings are NotCapable, never a connection error that could leak whether something listens
  assert.doesNotMatch(result.stdout, /refused http:\/\/(127|0x|0177|2130706433|localhost)\S* TypeError/);
  assert.deepEqual(hits, []);
  if (!named) return;
  const byName = await runScript('fetch-named', FETCH_ALL([`http://${named.name}:${deniedPort}/x`]), ['--allow-net', `--deny-net=${named.address}`]);
  assert.match(byName.stdout, /^refused \S+ NotCapable$/m, 'the granted name resolves to a denied address');
  assert.deepEqual(hits, []);
});

test('fetch: a redirect hop in another spelling is checked as the address it names', async () => {
  hits.length = 0;
  const hop = (to: string) => `http://127.0.0.1:${allowedPort}/redirect-to/${encodeURIComponent(to)}`;
  const result = await runScript(
    'fetch-redirect',
    FETCH_ALL([hop(`http://0x7f000001:${deniedPort}/x`), hop(`http://[::ffff:127.0.0.1]:${deniedPort}/x`), hop(`http://127.1:${allowedPort}/ok`)]),
    [`--allow-net=127.0.0.1:${allowedPort}`],
  );
  assert.equal(result.exitCode, 0, result.stderr);
  const lines = result.stdout.trim().split('\n');
  assert.match(lines[0]!, /^refused \S+ NotCapable$/);
  assert.match(lines[1]!, /^refused \S+ NotCapable$/);
  assert.match(lines[2]!, /^REACHED \S+ 200 hello from allowed$/, 'the granted address in another spelling is the granted address');
  assert.ok(!hits.some((h) => h.startsWith('denied')), hits.join('; '));
});

test('a sandboxed child through the real proxy: spellings of a denied address get 403, the granted one 200', { skip: NO_OS_SANDBOX }, async () => {
  hits.length = 0;
  const probe = path.resolve(import.meta.dirname, '..', 'fixtures', 'bin', 'net-probe.cjs');
  const attempts = ['127.1', '2130706433', '0x7f000001', '0177.0.0.1', '[::ffff:127.0.0.1]', 'localhost'].flatMap((s) => [
    ['connect', `${s}:${deniedPort}`],
    ['get', `http://${s}:${deniedPort}/x`],
  ]);
  const body = `
const lines = [];
for (const [mode, target] of ${JSON.stringify([...attempts, ['get', `http://127.1:${allowedPort}/ok`]])}) {
  const out = await new Deno.Command(${JSON.stringify(process.execPath)}, { args: [${JSON.stringify(probe)}, mode, target], stdout: 'piped' }).output();
  lines.push(mode + ' ' + target + ' -> ' + new TextDecoder().decode(out.stdout).trim());
}
console.log(lines.join('\\n'));`;
  const result = await runScript('child-spellings', body, [`--allow-run=${process.execPath}`, `--allow-read=${path.dirname(probe)}`, '--allow-net', `--deny-net=127.0.0.1:${deniedPort}`]);
  assert.equal(result.exitCode, 0, result.stderr);
  const lines = result.stdout.trim().split('\n');
  for (const line of lines.slice(0, -1)) assert.match(line, / -> status 403/, line);
  assert.match(lines.at(-1)!, / -> status 200 hello from allowed$/);
  assert.ok(!hits.some((h) => h.startsWith('denied')), hits.join('; '));
});
