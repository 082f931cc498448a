/**
 * The checks features/verify adds to `runtimectl verify`: a changed manifest and a changed
 * bundle input are caught against the recorded substrate (file, line or input, what
 * changed), a manifest that no longer loads is an error and a new plugin a warning; a ledger
 * inconsistency and a damaged sqlite event store fail their persona with file and position.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { main } from '../../../cli/main.ts';
import type { CliIo } from '../../command/command.ts';
import { VERIFY_CHECKS, verifyStateDir, type VerifyReport } from '../cli.ts';
import { openLedger } from '../../ledger/index.ts';
import { openBackend } from '../../persistence/index.ts';
import { substrateCheck } from '../checks.ts';
import { currentSubstrate, recordSubstrate, readSubstrate } from '../../substrate/substrate.ts';
import { populate } from '../../ledger/test/helpers.ts';
import { prepareLedger } from '../../ledger/open.ts';
import { scanRegistry } from '../../plugin-search/scan.ts';
import { checkSubstrateAtStart } from '../../substrate/substrate-at-start.ts';
import { defaultModuleLoader } from '../../../sandboxes/index.ts';

// The ledger runs in its plugin's isolate: built once per test process.
await prepareLedger();

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
}

const MANIFEST = (id: string, version = '1.0.0') =>
  `# a test plugin\nversion: ${version}\nid: ${id}\nkind: tool\nentry: mod.ts\ndescription: test plugin ${id}\nexports: [f]\n`;

/** A plugins folder with two isolate plugins; tool-a's entry imports a helper. */
function pluginsFolder(): string {
  const root = path.join(tmp(), 'plugins');
  for (const [folder, id] of [['tool-a', 'tool.a'], ['tool-b', 'tool.b']] as const) {
    fs.mkdirSync(path.join(root, folder), { recursive: true });
    fs.writeFileSync(path.join(root, folder, 'plugin.yaml'), MANIFEST(id));
  }
  fs.writeFileSync(path.join(root, 'tool-a', 'mod.ts'), "import { twice } from './helper.ts';\nexport function f(x: number) { return twice(x); }\n");
  fs.writeFileSync(path.join(root, 'tool-a', 'helper.ts'), 'export function twice(x: number) { return 2 * x; }\n');
  fs.writeFileSync(path.join(root, 'tool-b', 'mod.ts'), 'export function f() { return 1; }\n');
  return root;
}

async function substrateReport(state: string, pluginsDir: string, cacheDir: string) {
  const report = await verifyStateDir(state, VERIFY_CHECKS, [substrateCheck({ pluginsDir, loader: defaultModuleLoader({ cacheDir }) })]);
  const check = report.state.find((c) => c.name === 'substrate')!;
  return { report, check };
}

test('verify compares every plugin manifest and bundle with the recorded substrate', async () => {
  const state = tmp();
  const pluginsDir = pluginsFolder();
  const cacheDir = tmp();
  const absent = await substrateReport(state, pluginsDir, cacheDir);
  assert.equal(absent.check.status, 'absent', 'nothing recorded yet is not a failure');

  const recorded = await recordSubstrate(state, { pluginsDir, loader: defaultModuleLoader({ cacheDir }) });
  assert.deepEqual(Object.keys(recorded.plugins), ['tool-a', 'tool-b']);
  assert.deepEqual(Object.keys((recorded.plugins['tool-a']!.bundle as { inputs: object }).inputs).sort(), ['helper.ts', 'mod.ts']);
  assert.deepEqual(readSubstrate(state), recorded);
  assert.ok(!fs.readFileSync(path.join(state, 'substrate.json'), 'utf8').includes(pluginsDir), 'no host path is recorded');
  const intact = await substrateReport(state, pluginsDir, cacheDir);
  assert.equal(intact.check.status, 'ok', JSON.stringify(intact.check.findings));
  assert.equal(intact.report.ok, true);

  // A changed manifest: the file, the line, the field.
  const manifest = path.join(pluginsDir, 'tool-a', 'plugin.yaml');
  fs.writeFileSync(manifest, MANIFEST('tool.a', '1.0.1'));
  let { report, check } = await substrateReport(state, pluginsDir, cacheDir);
  assert.equal(check.status, 'failed');
  assert.equal(report.ok, false);
  assert.equal(check.findings.length, 1);
  assert.deepEqual([check.findings[0]!.file, check.findings[0]!.line], [manifest, 2]);
  assert.match(check.findings[0]!.what, /^tool\.a: manifest changed since recorded \(sha256 [0-9a-f]{12}… → [0-9a-f]{12}…\); fields changed: version "1\.0\.0" → "1\.0\.1"$/);
  fs.writeFileSync(manifest, `${MANIFEST('tool.a')}# a comment\n`);
  ({ check } = await substrateReport(state, pluginsDir, cacheDir));
  assert.match(check.findings[0]!.what, /no declared field changed \(comments or formatting\)/);
  assert.equal(check.findings[0]!.line, 8);
  fs.writeFileSync(manifest, MANIFEST('tool.a'));

  // A changed bundle input (not the entry): named as the file at fault.
  const helper = path.join(pluginsDir, 'tool-a', 'helper.ts');
  fs.writeFileSync(helper, 'export function twice(x: number) { return x + x + 1; }\n');
  ({ check } = await substrateReport(state, pluginsDir, cacheDir));
  assert.equal(check.status, 'failed');
  assert.equal(check.findings[0]!.file, helper);
  assert.match(check.findings[0]!.what, /^tool\.a: isolate bundle digest changed since recorded \([0-9a-f]{12}… → [0-9a-f]{12}…\): input helper\.ts changed \(sha256/);
  fs.writeFileSync(helper, 'export function twice(x: number) { return 2 * x; }\n');
  ({ check } = await substrateReport(state, pluginsDir, cacheDir));
  assert.equal(check.status, 'ok', 'back as recorded: intact again');

  // A new plugin is a warning; a manifest that does not load is an error with its field.
  fs.mkdirSync(path.join(pluginsDir, 'tool-c'));
  fs.writeFileSync(path.join(pluginsDir, 'tool-c', 'plugin.yaml'), MANIFEST('tool.c'));
  fs.writeFileSync(path.join(pluginsDir, 'tool-c', 'mod.ts'), 'export function f() { return 3; }\n');
  ({ check } = await substrateReport(state, pluginsDir, cacheDir));
  assert.equal(check.status, 'ok');
  assert.deepEqual(check.findings.map((f) => [f.severity, f.what]), [['warning', 'tool.c: plugin added since the substrate was recorded']]);
  fs.writeFileSync(path.join(pluginsDir, 'tool-b', 'plugin.yaml'), MANIFEST('tool.b').replace('kind: tool', 'kind: gadget'));
  ({ check } = await substrateReport(state, pluginsDir, cacheDir));
  assert.equal(check.status, 'failed');
  const broken = check.findings.find((f) => f.severity === 'error')!;
  assert.equal(broken.file, path.join(pluginsDir, 'tool-b', 'plugin.yaml'));
  assert.match(broken.what, /^tool\.b: the manifest no longer loads: RTC_ERR_MANIFEST_INVALID: .*plugin\.yaml: kind: /);
});

test('persistence plugins are isolate bundles, digested over every file they bundle and none of the kernel', async () => {
  const substrate = await currentSubstrate({ loader: defaultModuleLoader() });
  for (const folder of ['persistence-jsonl-fs', 'persistence-sqlite']) {
    const bundle = substrate.plugins[folder]?.bundle;
    assert.ok(bundle && 'kind' in bundle, `${folder}: ${JSON.stringify(bundle)}`);
    assert.equal(bundle.kind, 'isolate');
    assert.ok(Object.keys(bundle.inputs).includes('mod.ts'));
    assert.ok(Object.keys(bundle.inputs).some((f) => f.endsWith(path.join('persistence-shared', 'storage.ts'))), 'the shared binding wrappers are part of its digest');
    assert.ok(!Object.keys(bundle.inputs).some((f) => f.includes(`kernel${path.sep}`)), 'no kernel code runs in the backend');
  }
  assert.deepEqual(substrate.refused, {}, 'every shipped manifest loads');
});

async function cli(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd: os.tmpdir(), env: {} };
  const status = await main(args, io);
  return { status, stdout, stderr };
}

test('a ledger inconsistency fails its persona with the file and the position', async () => {
  const state = tmp();
  for (const persona of ['alpha', 'beta']) {
    const dir = path.join(state, persona);
    fs.mkdirSync(dir);
    const { store } = openLedger(dir, { backend: 'sqlite' });
    populate(store);
    store.close();
  }
  const ok = await cli(['verify', '--state-dir', state]);
  assert.equal(ok.status, 0, ok.stdout);
  assert.match(ok.stdout, /^alpha {2}ledger {2}ok {2}consistent$/m);

  const db = new Database(path.join(state, 'beta', 'orchestra', 'orchestra.db'));
  db.prepare("UPDATE tasks SET state = 'accepted', blocked_from = NULL, blocked_by_surprise = 0 WHERE id = 'T-0003'").run();
  db.close();
  const text = await cli(['verify', '--state-dir', state]);
  assert.equal(text.status, 1);
  assert.match(text.stdout, /^alpha {2}ledger {2}ok/m);
  assert.match(text.stdout, /^beta {2}ledger {2}FAILED/m);
  assert.match(text.stdout, /^ {2}error: .*beta\/orchestra\/orchestra\.db: task T-0003: state is accepted but its history ends at blocked$/m);
  const json = JSON.parse((await cli(['verify', '--state-dir', state, '--json'])).stdout) as VerifyReport;
  const ledger = json.personas.find((p) => p.id === 'beta')!.checks.find((c) => c.name === 'ledger')!;
  assert.equal(ledger.findings[0]!.file, path.join(state, 'beta', 'orchestra', 'orchestra.db'));
  assert.equal(ledger.findings[0]!.code, 'RTC_ERR_LEDGER_CORRUPT');
});

test('a sqlite persona is verified through persistence.db, and a bad persistence.yaml fails', async () => {
  const state = tmp();
  const dir = path.join(state, 'gamma');
  fs.mkdirSync(dir);
  const backend = await openBackend(dir, 'sqlite');
  for (let i = 0; i < 4; i++) await backend.events.append('test.tick', { i });
  await backend.close();
  fs.writeFileSync(path.join(dir, 'persistence.yaml'), 'schema_version: 1\nbackend: sqlite\n');
  const ok = await cli(['verify', '--state-dir', state]);
  assert.equal(ok.status, 0, ok.stdout);
  assert.match(ok.stdout, /^gamma {2}persistence {2}ok {2}sqlite$/m);
  assert.match(ok.stdout, /^gamma {2}events {2}ok {2}4 event\(s\), last seq 4; incremental: checked seq 1\.\.4/m);

  // The events are in the kernel's own database (features/persistence/storage/sqlite-events-db.ts).
  const db = new Database(path.join(dir, 'logs', 'events.db'));
  db.prepare("UPDATE events SET type = 'test.tock' WHERE seq = 2").run();
  db.close();
  const bad = await cli(['verify', '--state-dir', state]);
  assert.equal(bad.status, 1);
  assert.match(bad.stdout, /^ {2}error: .*gamma\/logs\/events\.db \(seq 2\): hash .* does not match the event's content/m);

  fs.writeFileSync(path.join(dir, 'persistence.yaml'), 'schema_version: 1\nbackend: cassandra\n');
  const unknown = await cli(['verify', '--state-dir', state]);
  assert.match(unknown.stdout, /gamma\/persistence\.yaml: RTC_ERR_PERSISTENCE_PLUGIN: no persistence backend "cassandra" is installed/);
});

test('runtimectl verify reports the recorded substrate of the shipped plugins as intact', async () => {
  const state = tmp();
  await recordSubstrate(state, { loader: defaultModuleLoader() });
  const text = await cli(['verify', '--state-dir', state]);
  assert.equal(text.status, 0, text.stdout);
  assert.match(text.stdout, /^\(state\) {2}substrate {2}ok {2}\d+ plugin\(s\) match the record of /m);
});

test('outside plugin folders in the substrate: recorded with their folder; a start that does not search it keeps them; verify names the folder to pass; a moved plugin is a warning', async () => {
  const state = tmp();
  const builtIn = pluginsFolder();
  const cacheDir = tmp();
  // An outside folder F with one plugin, and another G to move it to.
  const outside = path.join(tmp(), 'mine');
  fs.mkdirSync(path.join(outside, 'tool-o'), { recursive: true });
  fs.writeFileSync(path.join(outside, 'tool-o', 'plugin.yaml'), MANIFEST('tool.o'));
  fs.writeFileSync(path.join(outside, 'tool-o', 'mod.ts'), 'export function f() { return 7; }\n');
  const withF = () => scanRegistry([builtIn, outside]);
  const first = await checkSubstrateAtStart(state, { registry: withF(), loader: defaultModuleLoader({ cacheDir }) });
  assert.equal(first.status, 'recorded');
  const recorded = readSubstrate(state)!;
  assert.deepEqual(recorded.search_path, [outside]);
  assert.equal(recorded.plugins['mine/tool-o']!.source, outside, 'the outside folder is recorded');
  assert.equal(recorded.plugins['tool-a']!.source, undefined, 'built-in plugins record no path');

  // Another persona's start without F: not a change, and the record keeps tool.o.
  const without = await checkSubstrateAtStart(state, { registry: scanRegistry([builtIn]), loader: defaultModuleLoader({ cacheDir }) });
  assert.deepEqual([without.status, without.changes], ['verified', []]);
  assert.ok(readSubstrate(state)!.plugins['mine/tool-o'], 'still recorded');

  // verify without F: off the search path, the folder named; with F: intact.
  const off = (await verifyStateDir(state, [], [substrateCheck({ registry: scanRegistry([builtIn]), loader: defaultModuleLoader({ cacheDir }) })])).state[0]!;
  assert.equal(off.status, 'failed');
  assert.deepEqual(off.findings.map((f) => [f.code, f.file, f.what]), [
    ['RTC_ERR_SUBSTRATE_OFF_PATH', path.join(outside, 'tool-o', 'plugin.yaml'), `tool.o: recorded from an outside plugin folder that is not on this search path, so it was not checked: pass --plugins-dir ${outside} (or add it to RUNTIMECTL_PLUGIN_PATH), as the run that recorded it did`],
  ]);
  const on = (await verifyStateDir(state, [], [substrateCheck({ registry: withF(), loader: defaultModuleLoader({ cacheDir }) })])).state[0]!;
  assert.equal(on.status, 'ok', JSON.stringify(on.findings));

  // A change in F is found where it is, with F's path.
  fs.writeFileSync(path.join(outside, 'tool-o', 'mod.ts'), 'export function f() { return 8; }\n');
  const changed = (await verifyStateDir(state, [], [substrateCheck({ registry: withF(), loader: defaultModuleLoader({ cacheDir }) })])).state[0]!;
  assert.equal(changed.status, 'failed');
  assert.equal(changed.findings[0]!.file, path.join(outside, 'tool-o', 'mod.ts'));
  fs.writeFileSync(path.join(outside, 'tool-o', 'mod.ts'), 'export function f() { return 7; }\n');

  // Moved to another outside folder G: found by its id there, a warning, and still compared.
  const other = path.join(tmp(), 'theirs');
  fs.mkdirSync(other);
  fs.renameSync(path.join(outside, 'tool-o'), path.join(other, 'tool-o'));
  const moved = (await verifyStateDir(state, [], [substrateCheck({ registry: scanRegistry([builtIn, outside, other]), loader: defaultModuleLoader({ cacheDir }) })])).state[0]!;
  assert.equal(moved.status, 'ok', JSON.stringify(moved.findings));
  assert.deepEqual(moved.findings.map((f) => [f.severity, f.file, f.what]), [['warning', path.join(other, 'tool-o', 'plugin.yaml'), 'tool.o: moved to another folder of the search path since it was recorded (from mine/tool-o)']]);
  // And gone from a folder that is searched: gone.
  fs.rmSync(path.join(other, 'tool-o'), { recursive: true });
  const gone = (await verifyStateDir(state, [], [substrateCheck({ registry: scanRegistry([builtIn, outside]), loader: defaultModuleLoader({ cacheDir }) })])).state[0]!;
  assert.deepEqual(gone.findings.map((f) => [f.code, f.what]), [['RTC_ERR_SUBSTRATE_CHANGED', 'tool.o: recorded plugin is gone']]);
});
