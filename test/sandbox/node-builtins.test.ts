/**
 * node: built-ins in the isolate (sandboxes/loader/node-builtins.ts, sandboxes/shim/node/): a script
 * pays only for the modules it imports (each node: module is a shim part, loaded on first use);
 * the loader handed to the module body is no global; a built-in the sandbox does not offer is
 * refused at build with one line naming it. What the modules do, granted and denied, is compared
 * with the real Deno by test/conformance (scripts 89-104); what they must not reach, by
 * test/containment (scripts 64-74).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, test } from 'node:test';
import { bundleEntry } from '../../sandboxes/loader/bundle.ts';
import { isKernelError } from '../../kernel/errors.ts';
import { loadSandboxProfile } from '../../features/plugin-search/sandbox-profiles.ts';
import { NODE_MODULE_REFUSALS } from '../../sandboxes/shim/node/modules.ts';
import { IsolateRuntime } from '../../sandboxes/isolate/isolate-runtime.ts';
import { loadShim } from '../../sandboxes/isolate/shim-source.ts';
import type { CompiledSource } from '../../sandboxes/isolate/isolate-runtime.ts';

// Pure modules only: no op is answered (an effect would fail the script, and the test).
const noOps = { sync: () => '{"ok":null}', async: async () => '{"ok":null}', any: async () => '{"ok":null}' };
let cacheDir: string;
let srcDir: string;
let shim: CompiledSource;

before(async () => {
  cacheDir = mkdtempSync(path.join(os.tmpdir(), 'rtc-cache-'));
  srcDir = mkdtempSync(path.join(os.tmpdir(), 'rtc-src-'));
  shim = await loadShim(cacheDir);
});

/** Runs `source` as a script; its stdout and the shim parts its isolate loaded. */
async function runScript(name: string, source: string): Promise<{ stdout: string; exitCode: number; parts: string[] }> {
  const file = path.join(srcDir, name);
  writeFileSync(file, source);
  const bundle = await bundleEntry(file, cacheDir);
  let stdout = '';
  const runtime = IsolateRuntime.create(shim, {
    limits: loadSandboxProfile('trusted').limits,
    webAssembly: false,
    args: [],
    syncMode: 'callback',
    ops: noOps,
    onOutput: (fd, text) => {
      if (fd === 1) stdout += text;
    },
    surface: 'script',
  });
  try {
    const outcome = await runtime.runMain({ code: bundle.code, digest: bundle.digest, filename: name });
    return { stdout, exitCode: outcome.exitCode, parts: [...runtime.partsLoaded] };
  } finally {
    runtime.dispose();
  }
}

const nodeParts = (parts: string[]) => parts.filter((p) => p.startsWith('node-'));

test('a script that imports no node: module loads none of their parts', async () => {
  const ran = await runScript('plain.ts', "console.log(typeof Deno.readTextFile, [1, 2].map((x) => x * 2).join(','));\n");
  assert.equal(ran.exitCode, 0);
  assert.equal(ran.stdout, 'function 2,4\n');
  assert.deepEqual(nodeParts(ran.parts), []);
});

test('a node: import loads that module and what it is built on, nothing else; Buffer and process load on first touch', async () => {
  const pathOnly = await runScript('path.ts', "import path from 'node:path';\nconsole.log(path.join('/a', '../b', 'c.txt'), path.extname('x.tar.gz'));\n");
  assert.equal(pathOnly.stdout, '/b/c.txt .gz\n');
  assert.ok(pathOnly.parts.includes('node-path'));
  for (const heavy of ['node-fs', 'node-stream', 'node-process', 'node-crypto', 'node-child-process', 'node-buffer']) assert.ok(!pathOnly.parts.includes(heavy), `${heavy} loaded for node:path: ${pathOnly.parts.join(', ')}`);

  const buffer = await runScript('buffer.ts', "console.log(Buffer.from('hi').toString('hex'));\n");
  assert.equal(buffer.stdout, '6869\n');
  assert.ok(buffer.parts.includes('node-buffer'));
  assert.ok(!buffer.parts.includes('node-process'));
});

test('the node: loader handed to the module body is no global, and a bare built-in is node:', async () => {
  const ran = await runScript(
    'loader.ts',
    "import { sep } from 'path';\nimport * as ns from 'node:path';\nconsole.log(sep, 'node' + ':path' in globalThis, Object.getOwnPropertyNames(globalThis).filter((n) => /__rtc|runtimectl/i.test(n)).length, ns.sep === sep);\n",
  );
  assert.equal(ran.exitCode, 0);
  assert.equal(ran.stdout, '/ false 0 true\n');
});

test('a node: module the sandbox does not offer is refused at build, one line naming it', async () => {
  for (const name of ['vm', 'worker_threads', 'inspector', 'v8', 'cluster', 'net', 'module']) {
    const file = path.join(srcDir, `uses-${name}.ts`);
    writeFileSync(file, `import x from 'node:${name}';\nconsole.log(x);\n`);
    const refused = await bundleEntry(file, cacheDir).then(
      () => null,
      (error: unknown) => error,
    );
    assert.ok(isKernelError(refused), `node:${name} was not refused`);
    assert.equal(refused.code, 'RTC_ERR_NPM_NODE_BUILTIN');
    assert.match(refused.message, new RegExp(`uses-${name}\\.ts:1:\\d+: "node:${name}": the sandbox does not offer the Node built-in "node:${name}"`));
    assert.ok(refused.message.includes(`(${NODE_MODULE_REFUSALS[name]})`), refused.message);
    assert.equal(refused.message.split('\n').length, 1);
  }
});
