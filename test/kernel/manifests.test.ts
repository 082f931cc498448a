import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { KernelError } from '../../kernel/errors.ts';
import { renderJsonSchemas } from '../../cli/json-schemas.ts';
import { SCHEMAS } from '../../cli/schemas.ts';
import { CONTRACT_DOC, renderContractDoc } from '../../cli/contract-docs.ts';
import { listSandboxProfiles, loadSandboxProfile } from '../../kernel/manifest/sandbox-profile.ts';
import { loadPlugin, scanPlugins, scanRegistry } from '../../features/plugin-search/scan.ts';
import { PLUGIN_CONTRACTS } from '../../cli/contract-catalog.ts';
import { PLUGIN_KINDS } from '../../kernel/manifest/plugin-manifest.ts';

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

test('a kind\'s own manifest sections belong to that kind only, each refused naming the field', () => {
  const refused = (yaml: string, files?: Record<string, string>) => {
    try {
      loadPlugin(pluginDir(yaml, files));
    } catch (e) {
      assert.ok(e instanceof KernelError && e.code === 'RTC_ERR_MANIFEST_INVALID', String(e));
      return e.message;
    }
    assert.fail(`accepted: ${yaml}`);
  };
  const tool = `${GOOD}tools:\n  - { export: f, description: d }\n`;
  assert.match(refused(tool.replace('kind: tool', 'kind: executor').replace('tool.demo', 'executor.demo')), /plugin\.yaml: tools: only tool plugins declare tools, not executor plugins/);
  assert.match(refused(tool.replace('export: f', 'export: g')), /plugin\.yaml: tools\[0\]\.export: "g" is not in exports \(f\)/);
  assert.match(refused(`${GOOD}tools:\n  - { export: f, description: d, input_schema: { type: string } }\n`), /input_schema: a tool's input_schema must be a JSON Schema with type: object/);
  assert.match(refused(`${GOOD}gate_check: { reads: [] }\n`), /plugin\.yaml: gate_check: only gate-check plugins have a gate_check section, not tool plugins/);
  assert.match(refused(GOOD.replace('tool.demo', 'gate-check.demo')), /plugin\.yaml: id: ids starting "gate-check\." are for gate-check plugins, not tool plugins/);
  const check = 'id: gate-check.demo\nversion: 1.0.0\nkind: gate-check\nentry: mod.ts\ndescription: demo\n';
  assert.match(refused(`${check}exports: [f]\n`), /plugin\.yaml: exports: a gate-check plugin exports "check"/);
  assert.match(refused(`${check.replace('gate-check.demo', 'check.demo')}exports: [check]\n`), /plugin\.yaml: id: a gate-check plugin's id is "gate-check\.<check name>"/);
  assert.equal(loadPlugin(pluginDir(`${check}exports: [check]\n`, { 'mod.ts': 'export function check() {}' })).manifest.id, 'gate-check.demo');
});

test('a plugin asking for more than its profile ceiling is refused, naming what', () => {
  const dir = pluginDir(`${GOOD}sandbox: community-draft\npermissions:\n  net: [example.com]\n`);
  assert.throws(() => loadPlugin(dir), (e: unknown) => e instanceof KernelError && e.code === 'RTC_ERR_PERMISSION_CEILING' && /net:example\.com/.test(e.message));
});

test('the registry names what is wrong with a plugin it is asked for: not installed, another kind, refused', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'rtc-plugins-'));
  const write = (folder: string, yaml: string) => {
    mkdirSync(path.join(root, folder));
    writeFileSync(path.join(root, folder, 'plugin.yaml'), yaml);
    writeFileSync(path.join(root, folder, 'mod.ts'), 'export function f() { return 1; }');
  };
  write('demo', GOOD);
  write('broken', GOOD.replace('tool.demo', 'tool.broken').replace('version: 1.0.0', 'version: one'));
  const registry = scanRegistry(root);
  assert.equal(registry.find('tool.demo', 'tool').manifest.id, 'tool.demo');
  assert.throws(() => registry.find('tool.nope', 'tool'), { code: 'RTC_ERR_PLUGIN_UNKNOWN', message: /^plugin tool\.nope is not installed \(tool plugins: tool\.demo\)/ });
  assert.throws(() => registry.find('tool.demo', 'executor'), { code: 'RTC_ERR_PLUGIN_KIND', message: 'plugin tool.demo is a tool plugin, not an executor plugin' });
  assert.throws(() => registry.find('tool.broken'), { code: 'RTC_ERR_PLUGIN_REFUSED', message: /^plugin tool\.broken was refused: .*version: a semantic version/ });
});

test('a missing entry file is refused', () => {
  const dir = pluginDir(GOOD, {});
  assert.throws(() => loadPlugin(dir), /entry: file "mod.ts" does not exist/);
});

test('the JSON Schemas in schemas/ and docs/plugin-contracts.md are the ones the zod schemas generate (run npm run schemas)', () => {
  for (const [file, text] of renderJsonSchemas(SCHEMAS)) {
    assert.equal(readFileSync(file, 'utf8'), text, `${path.basename(file)} is stale`);
  }
  assert.equal(readFileSync(CONTRACT_DOC, 'utf8'), renderContractDoc(), 'docs/plugin-contracts.md is stale');
});

test('every plugin kind has exactly one published contract, in the generated reference', () => {
  assert.deepEqual(PLUGIN_CONTRACTS.map((c) => c.kind).sort(), [...PLUGIN_KINDS].sort());
  const doc = readFileSync(CONTRACT_DOC, 'utf8');
  for (const kind of PLUGIN_KINDS) assert.equal(doc.split('\n').filter((l) => l === `## \`${kind}\``).length, 1, kind);
});

test('a profile name that is not a file is refused with the known ones', () => {
  assert.throws(() => loadSandboxProfile('nope'), /no sandbox profile "nope" \(have: community-draft, default, persistence, trusted\)/);
  void mkdirSync;
});
