import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { KernelError } from '../../kernel/errors.ts';
import { renderJsonSchemas } from '../../kernel/manifest/json-schemas.ts';
import { listSandboxProfiles, loadSandboxProfile } from '../../kernel/manifest/sandbox-profile.ts';
import { loadPlugin, scanPlugins } from '../../kernel/plugins/registry.ts';

function pluginDir(yaml: string, files: Record<string, string> = { 'mod.ts': 'export function f() { return 1; }' }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-plugin-'));
  writeFileSync(path.join(dir, 'plugin.yaml'), yaml);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

const GOOD = 'id: tool.demo\nversion: 1.0.0\nkind: tool\nentry: mod.ts\ndescription: demo\nexports: [f]\n';

test('the shipped plugins and profiles are valid', () => {
  const scan = scanPlugins();
  assert.deepEqual(scan.refused.map((r) => r.error.message), []);
  assert.ok(scan.plugins.length >= 2);
  for (const name of listSandboxProfiles()) assert.equal(loadSandboxProfile(name).name, name);
});

test('a bad manifest is refused with the file, the field path and the reason', () => {
  const dir = pluginDir(GOOD.replace('version: 1.0.0', 'version: one'));
  assert.throws(() => loadPlugin(dir), (e: unknown) => e instanceof KernelError && e.code === 'RTC_ERR_MANIFEST_INVALID' && /plugin\.yaml: version: a semantic version/.test(e.message));
  const nested = pluginDir(`${GOOD}permissions:\n  read: [1]\n`);
  assert.throws(() => loadPlugin(nested), /permissions\.read/);
  const unknownKey = pluginDir(`${GOOD}colour: blue\n`);
  assert.throws(() => loadPlugin(unknownKey), /colour/);
  const badYaml = pluginDir('id: [unclosed\n');
  assert.throws(() => loadPlugin(badYaml), (e: unknown) => e instanceof KernelError && e.code === 'RTC_ERR_MANIFEST_YAML');
});

test('a plugin asking for more than its profile ceiling is refused, naming what', () => {
  const dir = pluginDir(`${GOOD}sandbox: community-draft\npermissions:\n  net: [example.com]\n`);
  assert.throws(() => loadPlugin(dir), (e: unknown) => e instanceof KernelError && e.code === 'RTC_ERR_PERMISSION_CEILING' && /net:example\.com/.test(e.message));
});

test('a missing entry file is refused', () => {
  const dir = pluginDir(GOOD, {});
  assert.throws(() => loadPlugin(dir), /entry: file "mod.ts" does not exist/);
});

test('the JSON Schemas in schemas/ are the ones the zod schemas generate (run npm run schemas)', () => {
  for (const [file, text] of renderJsonSchemas()) {
    assert.equal(readFileSync(file, 'utf8'), text, `${path.basename(file)} is stale`);
  }
});

test('a profile name that is not a file is refused with the known ones', () => {
  assert.throws(() => loadSandboxProfile('nope'), /no sandbox profile "nope" \(have: community-draft, default, persistence, trusted\)/);
  void mkdirSync;
});
