/**
 * Issue 12, item 11: nothing in the build cache is trusted for being there. A planted
 * sandbox host script never runs (the host's code comes from the kernel's memory); a planted
 * bundle or index record is rebuilt, not run; a planted or copied V8 code cache is never
 * loaded (its seal is made with a key only the kernel reads, not a digest beside it); a code
 * cache a sandbox host produced never reaches the kernel's own isolates; and no sandboxed op
 * reaches the key, by path, link or hard link, even with -A.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { bundleEntry, bundleIndexFile, readCodeCache, sha256, writeCodeCache } from '../../sandboxes/loader/bundle.ts';
import { seal } from '../../sandboxes/loader/cache-integrity.ts';
import { createScriptRunner } from '../../features/sandbox-run/runner/script-runner.ts';
import { buildHostScript } from '../../sandboxes/pool/sandbox-host.ts';

const fresh = (prefix: string) => mkdtempSync(path.join(os.tmpdir(), prefix));
const runners: { close(): Promise<void> }[] = [];
after(async () => {
  for (const r of runners) await r.close();
});

test('a planted pool/host-<sha16>.cjs never runs: the host starts from code the kernel built in memory', async () => {
  const cacheDir = fresh('rtc-cache-');
  const marker = path.join(fresh('rtc-mark-'), 'planted-host-ran');
  const planted = `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran as the sandbox host'); process.send?.({ t: 'ready' });`;
  // under the exact name the kernel used to give its host script, and a few others
  const code = await buildHostScript();
  mkdirSync(path.join(cacheDir, 'pool'), { recursive: true });
  for (const name of [`host-${sha256(code).slice(0, 16)}.cjs`, 'host-0000000000000000.cjs', 'host-main.bundle.cjs']) writeFileSync(path.join(cacheDir, 'pool', name), planted);
  const dir = fresh('rtc-src-');
  writeFileSync(path.join(dir, 'ok.js'), 'console.log(6 * 7);\n');
  const runner = await createScriptRunner({ cacheDir });
  runners.push(runner);
  const r = await runner.run({ file: 'ok.js', args: [], permissionFlags: [], cwd: dir, env: {}, profile: 'default' });
  assert.equal(r.stdout, '42\n', r.stderr);
  assert.equal(existsSync(marker), false, 'the planted host script ran');
  assert.deepEqual(readdirSync(path.join(cacheDir, 'pool')).sort(), ['host-0000000000000000.cjs', `host-${sha256(code).slice(0, 16)}.cjs`, 'host-main.bundle.cjs'].sort(), 'the kernel wrote a host script to the cache');
});

test('a planted bundle with a matching index record (right input digests, its own digest) is rebuilt, never run', async () => {
  const cacheDir = fresh('rtc-cache-');
  const dir = fresh('rtc-src-');
  const entry = path.join(dir, 'mod.ts');
  writeFileSync(entry, 'export const answer = () => 42;\n');
  const legit = await bundleEntry(entry, cacheDir);
  const indexFile = bundleIndexFile(entry, cacheDir);
  const record = JSON.parse(readFileSync(indexFile, 'utf8')) as { inputs: Record<string, string>; digest: string; size: number; seal: string };
  const evil = `(async function () {\nreturn { answer: () => 'planted' };\n})`;
  const evilDigest = sha256(evil);
  writeFileSync(path.join(cacheDir, 'bundles', `${evilDigest}.js`), evil);
  // 1: the record points at the planted bundle (the seal copied from the real record, or none)
  for (const forged of [{ ...record, digest: evilDigest }, { inputs: record.inputs, digest: evilDigest, size: evil.length }, { ...record, digest: evilDigest, seal: randomBytes(32).toString('hex') }]) {
    writeFileSync(indexFile, JSON.stringify(forged));
    const again = await bundleEntry(entry, cacheDir);
    assert.equal(again.cached, false, 'a forged index record was trusted');
    assert.equal(again.digest, legit.digest);
    assert.ok(!again.code.includes('planted'));
  }
  // 2: the real bundle's file is replaced with other code under the same name
  writeFileSync(path.join(cacheDir, 'bundles', `${legit.digest}.js`), evil);
  const third = await bundleEntry(entry, cacheDir);
  assert.equal(third.cached, false);
  assert.ok(!third.code.includes('planted'));
  assert.equal((await bundleEntry(entry, cacheDir)).cached, true, 'the rebuilt bundle is cached again');
});

test('a code cache is loaded only with the kernel\'s seal, for its own digest, from its own producer', () => {
  const cacheDir = fresh('rtc-cache-');
  const digest = sha256('some code');
  const other = sha256('other code');
  const data = randomBytes(4096);
  // the old layout: data with its sha256 beside it, exactly what a planter can write
  mkdirSync(path.join(cacheDir, 'bundles'), { recursive: true });
  writeFileSync(path.join(cacheDir, 'bundles', `${digest}.v8`), data);
  writeFileSync(path.join(cacheDir, 'bundles', `${digest}.v8.sha256`), createHash('sha256').update(data).digest('hex'));
  assert.equal(readCodeCache(digest, cacheDir), undefined);
  // a forged seal in front of the data
  writeFileSync(path.join(cacheDir, 'bundles', `${digest}.kernel.v8`), Buffer.concat([randomBytes(32), data]));
  assert.equal(readCodeCache(digest, cacheDir), undefined);
  // a real one, copied to another digest's name, is refused there
  writeCodeCache(digest, data, cacheDir);
  assert.deepEqual(readCodeCache(digest, cacheDir), data);
  writeFileSync(path.join(cacheDir, 'bundles', `${other}.kernel.v8`), readFileSync(path.join(cacheDir, 'bundles', `${digest}.kernel.v8`)));
  assert.equal(readCodeCache(other, cacheDir), undefined);
  // what a sandbox host process produced is kept apart: the kernel's isolates never load it
  writeCodeCache(other, data, cacheDir, 'host');
  assert.deepEqual(readCodeCache(other, cacheDir, 'host'), data);
  assert.equal(readCodeCache(other, cacheDir, 'kernel'), undefined);
  writeFileSync(path.join(cacheDir, 'bundles', `${other}.kernel.v8`), readFileSync(path.join(cacheDir, 'bundles', `${other}.host.v8`)));
  assert.equal(readCodeCache(other, cacheDir, 'kernel'), undefined, 'a host cache renamed as the kernel\'s was loaded');
});

test('a key file others could read or write is not trusted: the kernel makes its own, private one', () => {
  const cacheDir = fresh('rtc-cache-');
  const planted = randomBytes(32);
  writeFileSync(path.join(cacheDir, 'integrity.key'), planted);
  chmodSync(path.join(cacheDir, 'integrity.key'), 0o644);
  const data = randomBytes(100);
  writeCodeCache(sha256('x'), data, cacheDir);
  const key = path.join(cacheDir, 'integrity.key');
  assert.equal(statSync(key).mode & 0o777, 0o600);
  assert.notDeepEqual(readFileSync(key), planted);
  // a seal made with the planted key does not verify
  const forged = Buffer.concat([seal(fresh('rtc-other-'), 'v8-code-cache', 'kernel', sha256('x'), data), data]);
  writeFileSync(path.join(cacheDir, 'bundles', `${sha256('x')}.kernel.v8`), forged);
  assert.equal(readCodeCache(sha256('x'), cacheDir), undefined);
});

test('no sandboxed op reaches the key or writes into the cache, by path, symlink or hard link, even with -A', async () => {
  const cacheDir = fresh('rtc-cache-');
  const dir = fresh('rtc-src-');
  const runner = await createScriptRunner({ cacheDir });
  runners.push(runner);
  const key = path.join(cacheDir, 'integrity.key');
  symlinkSync(key, path.join(dir, 'key-link'));
  linkSync(key, path.join(dir, 'key-hardlink'));
  symlinkSync(cacheDir, path.join(dir, 'cache-link'));
  writeFileSync(
    path.join(dir, 'steal.js'),
    `const out = [];\nfor (const [label, f] of [\n  ['read key', () => Deno.readFile(Deno.args[0])],\n  ['read link', () => Deno.readFile('key-link')],\n  ['read hard link', () => Deno.readFile('key-hardlink')],\n  ['read through a folder link', () => Deno.readFile('cache-link/integrity.key')],\n  ['stat key', () => Deno.stat(Deno.args[0])],\n  ['overwrite key', () => Deno.writeTextFile(Deno.args[0], 'x')],\n  ['overwrite through the hard link', () => Deno.writeTextFile('key-hardlink', 'x')],\n  ['plant a bundle', () => Deno.writeTextFile(Deno.args[1] + '/bundles/planted.js', 'x')],\n  ['plant a host script', () => Deno.mkdir(Deno.args[1] + '/pool', { recursive: true })],\n]) {\n  try { await f(); out.push(label + ': done'); } catch (e) { out.push(label + ': ' + e.name); }\n}\nconsole.log(out.join('\\n'));\n`,
  );
  const r = await runner.run({ file: 'steal.js', args: [key, cacheDir], permissionFlags: ['-A'], cwd: dir, env: {}, profile: 'default' });
  assert.equal(r.exitCode, 0, r.stderr);
  for (const line of r.stdout.trim().split('\n')) assert.match(line, /: NotCapable$/, line);
  assert.equal(readFileSync(key).length, 32);
  assert.equal(existsSync(path.join(cacheDir, 'bundles', 'planted.js')), false);
});
