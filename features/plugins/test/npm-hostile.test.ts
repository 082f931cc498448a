/**
 * Issue 27 item 6, from outside: a plugin's author controls its package.json, its
 * package-lock.json and any .npmrc beside them; the operator's shell may carry npm_config_*
 * variables and a ~/.npmrc. `runtimectl plugins install` runs none of the author's code on
 * the host and fetches from nowhere but the operator's registry:
 *
 *  - a plugin .npmrc with `git=./evil.sh` (the reported hole), `ignore-scripts=false` and a
 *    registry of its own is never read; the git dependency is refused naming --allow-git, and
 *    even with it evil.sh never runs;
 *  - lifecycle scripts never run, whatever any .npmrc or npm_config_* / NPM_CONFIG_* says;
 *  - every non-registry spec (git, shorthand, file, link, path, tarball URL, workspace, an
 *    alias to git, overrides, workspaces) is refused by name with its flag, before npm runs;
 *  - a lockfile pointing a registry name at git, a file, a link or another host is refused;
 *  - a git dependency deep in the tree fails without git ever running;
 *  - a bundled dependency is refused unless --allow-bundled;
 *  - a refused install leaves the folder as it was.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { installPackages, type InstallOptions } from '../../../sandboxes/loader/npm-install.ts';
import { isKernelError } from '../../../kernel/errors.ts';
import { runCli } from '../../../test/support/cli.ts';
import { startNpmRegistry } from '../../../test/support/npm-registry.ts';

let registry: { url: string; close: () => Promise<void> };
let root: string;
let marker: string;

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-npm-hostile-'));
  marker = path.join(root, 'AUTHOR-CODE-RAN');
  const touch = `node -e "require('fs').appendFileSync('${marker}', process.env.npm_lifecycle_event + '\\\\n')"`;
  registry = await startNpmRegistry([
    { name: 'tiny-pad', version: '1.2.0', type: 'module', files: { 'index.js': 'export default (s) => s;\n' } },
    { name: 'scripted', version: '1.0.0', files: { 'index.js': 'module.exports = 1;\n' }, scripts: { preinstall: touch, install: touch, postinstall: touch, prepare: touch } },
    { name: 'via-git', version: '1.0.0', files: { 'index.js': 'module.exports = 1;\n' }, dependencies: { deep: 'git+https://example.invalid/deep.git' } },
    { name: 'bundler', version: '1.0.0', files: { 'index.js': 'module.exports = 1;\n' }, bundled: [{ name: 'inner', version: '1.0.0', files: { 'index.js': 'module.exports = 2;\n' } }] },
  ]);
});
after(async () => {
  await registry.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** A plugin folder as its author shipped it: main.ts importing `imports`, and whatever files beside it. */
function plugin(name: string, imports: string[], files: Record<string, string> = {}): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'main.ts'), `${imports.map((i, n) => `import * as m${n} from '${i}';`).join('\n')}\nconsole.log(${imports.map((_, n) => `m${n}`).join(', ') || '1'});\n`);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

function install(dir: string, options: InstallOptions = {}) {
  return installPackages(dir, { registry: registry.url, cacheDir: path.join(root, 'npm-cache'), env: {}, ...options });
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isKernelError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  assert.fail('the install was expected to be refused');
}

/** What the folder holds, to show a refused install changed nothing (the stage is gone too). */
function listing(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).sort().map((f) => (fs.statSync(path.join(dir, f)).isFile() ? `${f}=${fs.readFileSync(path.join(dir, f), 'utf8').length}` : f));
}

test("a plugin's .npmrc (git=./evil.sh) with a git dependency: refused naming --allow-git; with it, the .npmrc is still never read", async () => {
  const evil = path.join(root, 'evil.sh');
  fs.writeFileSync(evil, `#!/bin/sh\necho git >> '${marker}'\nexit 0\n`, { mode: 0o755 });
  const dir = plugin('npmrc-git', ['npm:tiny-pad@1'], {
    '.npmrc': `git=${evil}\nignore-scripts=false\nregistry=http://127.0.0.1:9/\n`,
    'package.json': JSON.stringify({ dependencies: { payload: 'git+https://example.invalid/payload.git' } }),
  });
  const before = listing(dir);
  const r = await refusal(install(dir));
  assert.equal(r.code, 'RTC_ERR_NPM_SOURCE_REFUSED');
  assert.match(r.message, /package\.json dependencies\.payload: payload is "git\+https:\/\/example\.invalid\/payload\.git" is a git repository .*pass --allow-git to allow it$/);
  assert.deepEqual(listing(dir), before, 'the refused install changed nothing');
  // Allowed: npm gets the system git (which cannot reach example.invalid), never evil.sh
  const allowed = await refusal(install(dir, { allow: { git: true } }));
  assert.equal(allowed.code, 'RTC_ERR_NPM_INSTALL');
  assert.equal(fs.existsSync(marker), false, 'the author\'s program never ran');
  assert.deepEqual(listing(dir), before);
});

test('lifecycle scripts never run, whatever the plugin .npmrc, ~/.npmrc or npm_config_* / NPM_CONFIG_* say; the registry is the operator\'s', async () => {
  const home = path.join(root, 'operator-home');
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(home, '.npmrc'), 'ignore-scripts=false\nregistry=http://127.0.0.1:9/\nbin-links=true\n');
  const dir = plugin('scripts', ['npm:scripted@1'], { '.npmrc': 'ignore-scripts=false\nforeground-scripts=true\nregistry=http://127.0.0.1:9/\n' });
  const env = {
    HOME: home,
    npm_config_userconfig: path.join(home, '.npmrc'),
    npm_config_ignore_scripts: 'false',
    NPM_CONFIG_IGNORE_SCRIPTS: 'false',
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_script_shell: '/bin/sh',
    npm_config_git: path.join(root, 'evil.sh'),
    NODE_OPTIONS: `--require=${path.join(root, 'no-such-preload.js')}`,
  };
  const result = await install(dir, { env });
  assert.deepEqual(result.installed, ['scripted@1.0.0']);
  assert.equal(fs.existsSync(marker), false, 'no preinstall, install, postinstall or prepare ran');
  assert.equal(fs.existsSync(path.join(dir, 'node_modules', '.bin')), false, 'no bin links');
  assert.match(JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8')).packages['node_modules/scripted'].resolved, new RegExp(`^${registry.url}`));
  assert.deepEqual(fs.readdirSync(dir).filter((f) => f.startsWith('.runtimectl-npm-')), [], 'the staging folder is gone');
});

test('every source in package.json other than the registry is refused by name, with the flag that allows it', async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ dependencies: { a: 'github:evil/a' } }, /dependencies\.a: .*git repository.*--allow-git/],
    [{ dependencies: { a: 'evil/a' } }, /dependencies\.a: .*git repository.*--allow-git/],
    [{ dependencies: { a: 'evil/a#main' } }, /--allow-git/],
    [{ dependencies: { a: 'git+ssh://git@github.com/evil/a.git' } }, /--allow-git/],
    [{ dependencies: { a: 'git://example.invalid/a.git' } }, /--allow-git/],
    [{ dependencies: { a: 'https://example.invalid/a.git' } }, /--allow-git/],
    [{ dependencies: { a: 'gitlab:evil/a' } }, /--allow-git/],
    [{ dependencies: { a: 'npm:tiny-pad@github:evil/a' } }, /dependencies\.a: .*"npm:tiny-pad@github:evil\/a" is a git repository/],
    [{ dependencies: { a: 'file:../a' } }, /local path.*--allow-local/],
    [{ dependencies: { a: 'link:../a' } }, /--allow-local/],
    [{ dependencies: { a: './vendor/a.tgz' } }, /--allow-local/],
    [{ dependencies: { a: '/etc' } }, /--allow-local/],
    [{ dependencies: { a: '~/a' } }, /--allow-local/],
    [{ dependencies: { a: 'workspace:*' } }, /--allow-local/],
    [{ dependencies: { a: 'https://example.invalid/a-1.0.0.tgz' } }, /tarball URL.*--allow-url/],
    [{ optionalDependencies: { a: 'github:evil/a' } }, /optionalDependencies\.a: .*--allow-git/],
    [{ devDependencies: { a: 'file:..' } }, /devDependencies\.a: .*--allow-local/],
    [{ peerDependencies: { a: 'https://example.invalid/a.tgz' } }, /peerDependencies\.a: .*--allow-url/],
    [{ overrides: { 'tiny-pad': 'github:evil/pad' } }, /overrides\.tiny-pad: .*--allow-git/],
    [{ overrides: { 'tiny-pad': { '.': '1.2.0', deep: 'file:../x' } } }, /overrides\.tiny-pad\.deep: .*--allow-local/],
    [{ workspaces: ['packages/*'] }, /workspaces: .*--allow-local/],
    [{ dependencies: { a: 'svn+ssh://x/a' } }, /is not a registry version, range or tag/],
    [{ dependencies: { a: 1 } }, /has a value that is not a string/],
    [{ dependencies: { '../evil': '1.0.0' } }, /"\.\.\/evil"/],
  ];
  for (const [i, [manifest, expected]] of cases.entries()) {
    const dir = plugin(`spec-${i}`, ['npm:tiny-pad@1'], { 'package.json': JSON.stringify(manifest) });
    const before = listing(dir);
    const r = await refusal(install(dir));
    assert.equal(r.code, 'RTC_ERR_NPM_SOURCE_REFUSED', `${JSON.stringify(manifest)}: ${r.message}`);
    assert.match(r.message, expected, JSON.stringify(manifest));
    assert.doesNotMatch(r.message, /\n/);
    assert.deepEqual(listing(dir), before);
  }
  assert.equal(fs.existsSync(marker), false);
});

test('a lockfile that points a registry name at git, a file, a link or another host is refused before npm runs', async () => {
  const lock = (entry: Record<string, unknown>, v1 = false) =>
    JSON.stringify(
      v1
        ? { lockfileVersion: 1, dependencies: { 'tiny-pad': entry } }
        : { lockfileVersion: 3, packages: { '': { dependencies: { 'tiny-pad': '^1.0.0' } }, 'node_modules/tiny-pad': { version: '1.2.0', integrity: 'sha512-AAAA', ...entry } } },
    );
  const cases: [string, RegExp][] = [
    [lock({ resolved: 'git+ssh://git@github.com/evil/pad.git#0123456789abcdef' }), /packages\["node_modules\/tiny-pad"\]: .*git repository.*--allow-git/],
    [lock({ resolved: 'https://evil.invalid/tiny-pad-1.2.0.tgz' }), /tarball URL outside the registry.*--allow-url/],
    [lock({ resolved: 'file:../../../etc' }), /local path.*--allow-local/],
    [lock({ link: true, resolved: '../evil' }), /local path.*--allow-local/],
    [lock({ inBundle: true }), /bundled inside another package's tarball.*--allow-bundled/],
    [lock({ version: 'github:evil/pad#abc' }, true), /dependencies tiny-pad: .*git repository.*--allow-git/],
  ];
  for (const [i, [text, expected]] of cases.entries()) {
    const dir = plugin(`lock-${i}`, ['npm:tiny-pad@1'], { 'package.json': JSON.stringify({ dependencies: { 'tiny-pad': '^1.0.0' } }), 'package-lock.json': text });
    const r = await refusal(install(dir));
    assert.equal(r.code, 'RTC_ERR_NPM_SOURCE_REFUSED', r.message);
    assert.match(r.message, expected);
    assert.equal(fs.existsSync(path.join(dir, 'node_modules')), false);
  }
});

test('a git dependency deep in the tree fails without git running, naming --allow-git; a bundled one is refused unless --allow-bundled', async () => {
  const deep = plugin('deep-git', ['npm:via-git@1']);
  const r = await refusal(install(deep));
  assert.equal(r.code, 'RTC_ERR_NPM_SOURCE_REFUSED', r.message);
  assert.match(r.message, /a dependency \(of a dependency\) is a git repository .*pass --allow-git/);
  assert.equal(fs.existsSync(path.join(deep, 'node_modules')), false);

  const bundled = plugin('bundled', ['npm:bundler@1']);
  const b = await refusal(install(bundled));
  assert.equal(b.code, 'RTC_ERR_NPM_SOURCE_REFUSED');
  assert.match(b.message, /packages\["node_modules\/bundler\/node_modules\/inner"\]: the entry is a package bundled inside another package's tarball .*pass --allow-bundled to allow it$/);
  assert.equal(fs.existsSync(path.join(bundled, 'node_modules')), false, 'nothing moved into place');
  const ok = await install(bundled, { allow: { bundled: true } });
  assert.ok(ok.installed.includes('bundler@1.0.0'));
  assert.equal(fs.existsSync(marker), false);
});

test('the CLI: one line naming the flag, and the flags it takes', async () => {
  const dir = plugin('cli', ['npm:tiny-pad@1'], { 'package.json': JSON.stringify({ dependencies: { a: 'github:evil/a' } }) });
  const refused = await runCli(['plugins', 'install', dir, '--registry', registry.url], { cwd: root, env: {} });
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /^runtimectl: RTC_ERR_NPM_SOURCE_REFUSED: \S+package\.json dependencies\.a: a is "github:evil\/a" is a git repository .*pass --allow-git to allow it\n$/);
  const help = await runCli(['plugins', 'install', '--help'], { cwd: root, env: {} });
  for (const flag of ['--registry', '--allow-git', '--allow-local', '--allow-url', '--allow-bundled']) assert.ok(help.stdout.includes(flag), flag);
  const bad = await runCli(['plugins', 'install', dir, '--registry', 'ftp://x'], { cwd: root, env: {} });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /RTC_ERR_CLI_USAGE: --registry ftp:\/\/x: only http: and https: registries/);
});
