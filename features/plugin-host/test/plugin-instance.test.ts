import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { KernelError } from '../../../kernel/errors.ts';
import type { AuditEvent } from '../../../kernel/broker/op.ts';
import { allPermissionSet } from '../../../kernel/permissions/descriptors.ts';
import { parsePermissionFlags } from '../../../kernel/permissions/parse-flags.ts';
import { PluginInstance } from '../plugin-instance.ts';
import { loadPlugin } from '../../plugin-search/scan.ts';
import { defaultSandboxKit } from '../../../sandboxes/index.ts';

const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'rtc-cache-'));
const kit = defaultSandboxKit({ cacheDir });

function plugin(code: string, permissions = '{}', limits = '{ memoryMb: 32, cpuMs: 200 }') {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-plugin-'));
  const exports = [...code.matchAll(/export (?:async )?function (\w+)/g)].map((m) => m[1]).join(', ');
  writeFileSync(path.join(dir, 'plugin.yaml'), `id: tool.t\nversion: 1.0.0\nkind: tool\nentry: mod.ts\ndescription: test\nsandbox: trusted\npermissions: ${permissions}\nlimits: ${limits}\nexports: [${exports}]\n`);
  writeFileSync(path.join(dir, 'mod.ts'), code);
  // Loaded as a first-party plugin (its temp folder stands for the checkout's plugins/), so
  // `sandbox: trusted` is honoured and these run in the in-process tier they test.
  return { dir, loaded: loadPlugin(dir, path.dirname(dir), path.dirname(dir)) };
}

const instances: PluginInstance[] = [];
after(() => instances.forEach((i) => i.dispose()));

function instance(code: string, permissions?: string, allow = allPermissionSet(), audit?: (e: AuditEvent) => void, limits?: string) {
  const { dir, loaded } = plugin(code, permissions, limits);
  const i = new PluginInstance(loaded, { kit, allow, cwd: dir, env: { HOME: '/home/x', SECRET: 's' }, ...(audit ? { audit } : {}) });
  instances.push(i);
  return { i, dir };
}

test('a plugin call passes JSON in and out, sync and async', async () => {
  const { i } = instance('export function add(a: number, b: number) { return { sum: a + b }; }\nexport async function later(x: string) { await null; return x.toUpperCase(); }');
  assert.deepEqual(await i.call('add', 2, 3), { sum: 5 });
  assert.equal(await i.call('later', 'ok'), 'OK');
});

test('the grant is manifest ∩ caller ∩ ceiling, and each decision is audited', async () => {
  const events: AuditEvent[] = [];
  const { i, dir } = instance(
    'export function env(n: string) { try { return Deno.env.get(n) ?? null; } catch (e) { return (e as Error).name + ": " + (e as Error).message; } }\nexport async function read(p: string) { try { return await Deno.readTextFile(p); } catch (e) { return (e as Error).name; } }',
    '{ env: [HOME, SECRET], read: ["${plugin}"] }',
    parsePermissionFlags(['--allow-env=HOME', '--allow-read'], '/'),
    (e) => events.push(e),
  );
  writeFileSync(path.join(dir, 'data.txt'), 'hello');
  assert.equal(await i.call('env', 'HOME'), '/home/x');
  assert.equal(await i.call('env', 'SECRET'), 'NotCapable: Requires env access to "SECRET", run again with the --allow-env flag');
  assert.equal(await i.call('read', path.join(dir, 'data.txt')), 'hello');
  assert.equal(await i.call('read', '/etc/hostname'), 'NotCapable');
  assert.deepEqual(events.map((e) => `${e.op}:${e.value}:${e.decision}`), [
    'env.get:HOME:granted',
    'env.get:SECRET:denied',
    `fs.readTextFile:${path.join(dir, 'data.txt')}:granted`,
    'fs.readTextFile:/etc/hostname:denied',
  ]);
});

test('a call past its CPU limit gets a named error; the isolate is rebuilt on the next call; other plugins keep running', async () => {
  const { i } = instance('let calls = 0;\nexport function spin() { for (;;) {} }\nexport function count() { return ++calls; }');
  const { i: other } = instance('export function ping() { return "pong"; }');
  assert.equal(await i.call('count'), 1);
  await assert.rejects(i.call('spin'), (e: unknown) => e instanceof KernelError && e.code === 'RTC_ERR_SANDBOX_CPU');
  // until an asynchronous call rebuilds it, a synchronous call has no isolate to run in
  assert.throws(() => i.callSync('count'), { code: 'RTC_ERR_SANDBOX_DISPOSED', message: /^plugin tool\.t: no live in-process isolate for a synchronous call/ });
  assert.equal(await i.call('count'), 1, 'fresh isolate: module state starts over');
  assert.equal(i.builds, 2);
  assert.equal(await other.call('ping'), 'pong');
});

test('memory limit and oversized results are named errors too', async () => {
  // A generous CPU limit: on a loaded machine the memory limit must still be what stops the bomb.
  const { i } = instance('export function bomb() { const a: number[][] = []; for (;;) a.push(new Array(1e6).fill(1)); }\nexport function big() { return "x".repeat(9e6); }\nexport function ok() { return 1; }', '{}', allPermissionSet(), undefined, '{ memoryMb: 32, cpuMs: 20000, wallMs: 60000 }');
  await assert.rejects(i.call('bomb'), (e: unknown) => e instanceof KernelError && e.code === 'RTC_ERR_SANDBOX_MEMORY');
  await assert.rejects(i.call('big'), (e: unknown) => e instanceof KernelError && (e.code === 'RTC_ERR_SANDBOX_TRANSFER' || e.code === 'RTC_ERR_SANDBOX_MEMORY'));
  assert.equal(await i.call('ok'), 1);
});

test('an export the manifest does not list cannot be called; a thrown error keeps its message', async () => {
  const { i } = instance('export function boom() { throw new TypeError("bad input"); }');
  await assert.rejects(i.call('missing'), (e: unknown) => e instanceof KernelError && e.code === 'RTC_ERR_SANDBOX_NO_EXPORT');
  await assert.rejects(i.call('boom'), (e: unknown) => e instanceof KernelError && e.code === 'RTC_ERR_SANDBOX_SCRIPT' && e.message === 'TypeError: bad input');
});

test('no host object is reachable from inside', async () => {
  const { i } = instance(`export function probe() {
    const g = globalThis as Record<string, unknown>;
    const F = (function () {}).constructor as FunctionConstructor;
    // process is Deno's global (node:process over the broker's ops), never the host's: none of
    // the host's native doors (binding, dlopen, the module loader) is on it.
    const p = g.process as Record<string, unknown>;
    // a door opens when it hands out anything: process.binding is there, as in Deno, but empty
    const opens = (f: () => unknown) => { try { const got = f(); return got !== undefined && (typeof got !== 'object' || got === null || Reflect.ownKeys(got).length > 0); } catch { return false; } };
    const doors = Object.entries({
      binding: () => (p.binding as (n: string) => unknown)('fs'),
      linkedBinding: () => (p._linkedBinding as (n: string) => unknown)('fs'),
      dlopen: () => (p.dlopen as (m: object, f: string) => unknown)({}, '/lib/x86_64-linux-gnu/libc.so.6'),
      mainModule: () => p.mainModule,
    }).filter(([, f]) => opens(f)).map(([k]) => k);
    return { sameProcess: F('return this')().process === p, doors, require: typeof g.require, keys: Object.getOwnPropertyNames(g).filter((k) => /ivm|host|__/.test(k)) };
  }`);
  assert.deepEqual(await i.call('probe'), { sameProcess: true, doors: [], require: 'undefined', keys: [] });
});

test('process tier: a resident plugin in its own sandbox host process, same grant rules, rebuilt after its process dies', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-plugin-'));
  writeFileSync(path.join(dir, 'plugin.yaml'), 'id: tool.remote\nversion: 1.0.0\nkind: tool\nentry: mod.ts\ndescription: test\nsandbox: default\npermissions: { env: [HOME] }\nlimits: { memoryMb: 32, cpuMs: 60000, wallMs: 60000 }\nexports: [env, count, grow]\n');
  writeFileSync(path.join(dir, 'mod.ts'), `let calls = 0;
export async function env(n: string) { try { return Deno.env.get(n) ?? null; } catch (e) { return (e as Error).name; } }
export function count() { return ++calls; }
export function grow() { const m = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); for (let i = 0; i < 4000; i++) { m.grow(16); new Uint8Array(m.buffer).fill(1, i * 16 * 65536); } return 'grew'; }`);
  const events: AuditEvent[] = [];
  const i = new PluginInstance(loadPlugin(dir), { kit, allow: allPermissionSet(), cwd: dir, env: { HOME: '/home/r', SECRET: 's' }, audit: (e) => events.push(e) });
  instances.push(i);
  assert.equal(await i.call('env', 'HOME'), '/home/r');
  assert.equal(await i.call('env', 'SECRET'), 'NotCapable');
  assert.deepEqual(events.map((e) => `${e.op}:${e.value}:${e.decision}`), ['env.get:HOME:granted', 'env.get:SECRET:denied']);
  assert.equal(await i.call('count'), 1);
  assert.equal(await i.call('count'), 2);
  await assert.rejects(i.call('grow'), (e: unknown) => e instanceof KernelError && ['RTC_ERR_SANDBOX_MEMORY', 'RTC_ERR_SANDBOX_CRASHED'].includes(e.code));
  assert.equal(await i.call('count'), 1, 'a fresh process and isolate after the kill');
  assert.equal(i.builds, 2);
});
