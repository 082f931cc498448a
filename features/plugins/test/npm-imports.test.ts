/**
 * npm: imports end to end, against a local registry (test/support/npm-registry.ts) and the
 * real npm: `runtimectl plugins install` (installPackages) puts the packages a script
 * imports into its own folder with a lockfile carrying integrity hashes; a run bundles them
 * from there and never installs anything; a package's Node built-ins are the sandbox's, under
 * the script's grant; what cannot run in an isolate (a Node built-in the sandbox does not
 * offer, a native addon) is refused at install naming the package; `jsr:` says there is no
 * registry.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installPackages } from '../../../sandboxes/loader/npm-install.ts';
import { isKernelError } from '../../../kernel/errors.ts';
import { createScriptRunner, type ScriptRunner } from '../../sandbox-run/runner/script-runner.ts';
import { startNpmRegistry } from '../../../test/support/npm-registry.ts';

let registry: { url: string; close: () => Promise<void> };
let runner: ScriptRunner;
let root: string;

/** The install the CLI does, against the test registry (never an .npmrc or npm_config_* variable). */
function install(dir: string) {
  return installPackages(dir, { registry: registry.url, cacheDir: path.join(root, 'npm-cache') });
}

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-npm-'));
  registry = await startNpmRegistry([
    { name: 'tiny-pad', version: '1.2.0', type: 'module', main: 'index.js', files: { 'index.js': "export default function pad(s, n) { return String(s).padStart(n, '.'); }\n" } },
    { name: 'tiny-pad', version: '2.0.0', type: 'module', main: 'index.js', files: { 'index.js': "export default function pad() { return 'v2'; }\n" } },
    { name: 'shouter', version: '1.0.0', main: 'index.js', dependencies: { 'tiny-pad': '^1.0.0' }, files: { 'index.js': "const pad = require('tiny-pad').default; exports.shout = (s) => pad(s.toUpperCase(), 8) + '!';\n" } },
    { name: 'uses-fs', version: '1.0.0', main: 'index.js', files: { 'index.js': "const fs = require('fs'); exports.read = () => fs.readFileSync('/etc/hostname', 'utf8').length > 0;\n" } },
    { name: 'uses-vm', version: '1.0.0', main: 'index.js', files: { 'index.js': "const vm = require('vm'); exports.run = (code) => vm.runInNewContext(code);\n" } },
    { name: 'native-thing', version: '1.0.0', main: 'index.js', gypfile: true, files: { 'index.js': 'module.exports = 1;\n', 'binding.gyp': '{}\n' } },
  ]);
  runner = await createScriptRunner({ cacheDir: path.join(root, 'cache'), poolSize: 1 });
});

after(async () => {
  await runner.close();
  await registry.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function project(name: string, files: Record<string, string>): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
  return dir;
}

async function run(dir: string, file = 'main.ts') {
  return runner.run({ file: path.join(dir, file), args: [], permissionFlags: [], cwd: dir, env: {}, profile: 'default' });
}

async function installError(dir: string): Promise<{ code: string; message: string }> {
  try {
    await install(dir);
  } catch (error) {
    if (isKernelError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('install was expected to fail');
}

test('npm: imports (and their dependencies) run once installed, from a lockfile with integrity hashes; never before', async () => {
  const dir = project('app', {
    'main.ts': "import pad from 'npm:tiny-pad@^1.1.0';\nimport { shout } from 'npm:shouter@1';\nconsole.log(pad('x', 4), shout('hi'));\n",
  });
  const before = await run(dir);
  assert.equal(before.exitCode, 1);
  assert.match(before.stderr, /^error: RTC_ERR_NPM_NOT_INSTALLED: \S*main\.ts:1:\d+: "npm:tiny-pad@\^1\.1\.0" is not installed .*; run "runtimectl plugins install \S*app"\n$/);
  assert.equal(fs.existsSync(path.join(dir, 'node_modules')), false, 'a run installs nothing');

  const result = await install(dir);
  assert.deepEqual(result.installed, ['shouter@1.0.0', 'tiny-pad@1.2.0']);
  const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
  for (const key of ['node_modules/tiny-pad', 'node_modules/shouter']) assert.match(lock.packages[key].integrity, /^sha512-/);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).dependencies, { 'tiny-pad': '^1.1.0', shouter: '1' });

  const ran = await run(dir);
  assert.equal(ran.exitCode, 0, ran.stderr);
  assert.equal(ran.stdout, '...x ......HI!\n');
});

test('a bare import declared in the package.json beside the script resolves like npm:', async () => {
  const dir = project('bare', {
    'package.json': JSON.stringify({ private: true, dependencies: { 'tiny-pad': '1.2.0' } }),
    'main.ts': "import pad from 'tiny-pad';\nconsole.log(pad(7, 3));\n",
  });
  await install(dir);
  const ran = await run(dir);
  assert.equal(ran.exitCode, 0, ran.stderr);
  assert.equal(ran.stdout, '..7\n');
  const undeclared = project('bare-undeclared', { 'main.ts': "import pad from 'left-pad';\nconsole.log(pad);\n" });
  const refused = await run(undeclared);
  assert.equal(refused.exitCode, 1);
  assert.match(refused.stderr, /RTC_ERR_MODULE_NOT_FOUND: .*left-pad/);
});

test("a package's Node built-ins are the sandbox's, under the script's grant, as in Deno", async () => {
  const dir = project('builtin', { 'main.ts': "import { read } from 'npm:uses-fs@1';\nconsole.log(read());\n" });
  await install(dir);
  const denied = await run(dir);
  assert.equal(denied.exitCode, 1);
  assert.match(denied.stderr, /NotCapable: Requires read access to "\/etc\/hostname", run again with the --allow-read flag/);
  const granted = await runner.run({ file: path.join(dir, 'main.ts'), args: [], permissionFlags: ['--allow-read=/etc/hostname'], cwd: dir, env: {}, profile: 'default' });
  assert.equal(granted.exitCode, 0, granted.stderr);
  assert.equal(granted.stdout, 'true\n');
});

test('a package that needs a Node built-in the sandbox does not offer, or a native addon, is refused at install naming it', async () => {
  const vmUser = await installError(project('builtin-vm', { 'main.ts': "import { run } from 'npm:uses-vm@1';\nconsole.log(run('1'));\n" }));
  assert.equal(vmUser.code, 'RTC_ERR_NPM_NODE_BUILTIN');
  assert.match(vmUser.message, /npm package "uses-vm" imports "vm" \(in \S+index\.js\): the sandbox does not offer the Node built-in "node:vm"/);
  assert.equal(vmUser.message.split('\n').length, 1);
  const native = await installError(project('native', { 'main.ts': "import n from 'npm:native-thing@1';\nconsole.log(n);\n" }));
  assert.equal(native.code, 'RTC_ERR_NPM_NATIVE_ADDON');
  assert.match(native.message, /npm package "native-thing" is a native addon/);
});

test('jsr: and remote imports are refused with one line saying why', async () => {
  const jsr = await run(project('jsr', { 'main.ts': "import { assert } from 'jsr:@std/assert@1';\nassert(true);\n" }));
  assert.equal(jsr.exitCode, 1);
  assert.match(jsr.stderr, /^error: RTC_ERR_MODULE_UNSUPPORTED: \S*main\.ts:1:\d+: "jsr:@std\/assert@1": jsr: imports are not supported \(there is no JSR registry here\)/);
  assert.equal(jsr.stderr.trim().split('\n').length, 1);
  const remote = await run(project('remote', { 'main.ts': "import x from 'https://deno.land/x/y/mod.ts';\nconsole.log(x);\n" }));
  assert.equal(remote.exitCode, 1);
  assert.match(remote.stderr, /RTC_ERR_MODULE_UNSUPPORTED: .*https:\/\/deno\.land\/x\/y\/mod\.ts/);
});
