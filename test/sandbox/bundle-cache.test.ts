import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { buildRecipe, bundleEntry, RECIPE_FILES, recipeOf } from '../../sandboxes/loader/bundle.ts';
import { KernelError } from '../../kernel/errors.ts';
import { loadSandboxProfile } from '../../features/plugin-search/sandbox-profiles.ts';
import { IsolateRuntime } from '../../sandboxes/isolate/isolate-runtime.ts';
import { loadShim, withCodeCache } from '../../sandboxes/isolate/shim-source.ts';

const LOADER_DIR = path.resolve(import.meta.dirname, '../../sandboxes/loader');

const noOps = { sync: () => '{"ok":null}', async: async () => '{"ok":null}', any: async () => '{"ok":null}' };

test('a bundle is rebuilt only when an input changes, and a warm start compiles from the V8 code cache', async () => {
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'rtc-cache-'));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-src-'));
  writeFileSync(path.join(dir, 'mod.ts'), "import { twice } from './lib.ts';\nexport function f(x: number): number { return twice(x); }\n");
  writeFileSync(path.join(dir, 'lib.ts'), 'export const twice = (x: number) => x * 2;\n');
  const first = await bundleEntry(path.join(dir, 'mod.ts'), cacheDir);
  const second = await bundleEntry(path.join(dir, 'mod.ts'), cacheDir);
  assert.equal(first.cached, false);
  assert.equal(second.cached, true);
  assert.deepEqual(Object.keys(first.inputs).sort(), ['lib.ts', 'mod.ts']);
  writeFileSync(path.join(dir, 'lib.ts'), 'export const twice = (x: number) => x * 3;\n');
  const third = await bundleEntry(path.join(dir, 'mod.ts'), cacheDir);
  assert.equal(third.cached, false);
  assert.notEqual(third.digest, first.digest);

  const shim = await loadShim(cacheDir);
  const limits = loadSandboxProfile('trusted').limits;
  const start = () => IsolateRuntime.create(shim, { limits, webAssembly: false, args: [], syncMode: 'callback', ops: noOps, onOutput: () => undefined });
  const cold = start();
  await cold.load(withCodeCache(third.code, third.digest, 'mod', cacheDir));
  assert.equal(cold.callSync('f', [2]), 6);
  assert.equal(cold.compiles.at(-1)?.fromCache, false);
  cold.dispose();
  assert.ok(readdirSync(path.join(cacheDir, 'bundles')).some((f) => f === `${third.digest}.kernel.v8`));
  const warm = start();
  await warm.load(withCodeCache(third.code, third.digest, 'mod', cacheDir));
  assert.equal(warm.callSync('f', [2]), 6);
  assert.deepEqual(warm.compiles.map((c) => [c.filename, c.fromCache]), [['runtimectl:shim', true], ['mod', true]], 'shim and plugin both compiled from cache');
  warm.dispose();
});

test('a corrupted code cache is ignored, never loaded', async () => {
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'rtc-cache-'));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-src-'));
  writeFileSync(path.join(dir, 'mod.ts'), 'export const f = () => 1;\n');
  const bundle = await bundleEntry(path.join(dir, 'mod.ts'), cacheDir);
  const shim = await loadShim(cacheDir);
  const limits = loadSandboxProfile('trusted').limits;
  const rt = IsolateRuntime.create(shim, { limits, webAssembly: false, args: [], syncMode: 'callback', ops: noOps, onOutput: () => undefined });
  await rt.load(withCodeCache(bundle.code, bundle.digest, 'mod', cacheDir));
  rt.dispose();
  writeFileSync(path.join(cacheDir, 'bundles', `${bundle.digest}.kernel.v8`), 'not machine code');
  assert.equal(withCodeCache(bundle.code, bundle.digest, 'mod', cacheDir).cachedData, undefined);
});

test('a build error names the file, line and reason', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-src-'));
  writeFileSync(path.join(dir, 'bad.ts'), 'export const x = ;\n');
  await assert.rejects(bundleEntry(path.join(dir, 'bad.ts'), mkdtempSync(path.join(os.tmpdir(), 'rtc-cache-'))), (e: unknown) => e instanceof KernelError && e.code === 'RTC_ERR_BUILD_FAILED' && /bad\.ts:1:\d+: /.test(e.message));
  writeFileSync(path.join(dir, 'node.ts'), "import vm from 'node:vm';\nexport const x = vm;\n");
  await assert.rejects(bundleEntry(path.join(dir, 'node.ts'), mkdtempSync(path.join(os.tmpdir(), 'rtc-cache-'))), (e: unknown) => e instanceof KernelError && e.code === 'RTC_ERR_NPM_NODE_BUILTIN' && /node\.ts:1:\d+: "node:vm": the sandbox does not offer the Node built-in "node:vm"/.test(e.message));
});

test('the cache key covers the build code itself: a changed build source changes it, a missing one is an error, never skipped', () => {
  // A copy of the build's sources in the layout the recipe reads them from (RECIPE_FILES, relative to bundle.ts's folder).
  const root = mkdtempSync(path.join(os.tmpdir(), 'rtc-recipe-'));
  const dir = path.join(root, 'loader');
  for (const file of RECIPE_FILES) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    copyFileSync(path.join(LOADER_DIR, file), path.join(dir, file));
  }
  assert.equal(recipeOf(dir), buildRecipe(), 'the copy has the recipe of the sources it was copied from');
  for (const file of RECIPE_FILES) {
    const original = readFileSync(path.join(dir, file), 'utf8');
    writeFileSync(path.join(dir, file), `${original}\n// changed\n`);
    assert.notEqual(recipeOf(dir), buildRecipe(), `${file} is part of the key`);
    writeFileSync(path.join(dir, file), original);
  }
  rmSync(path.join(dir, 'node-builtins.ts'));
  assert.throws(() => recipeOf(dir), /cannot read its build source .*node-builtins\.ts/);
});
