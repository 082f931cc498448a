/**
 * scidex-runtime.yaml: the spec's own example is valid; each bad variant is refused with
 * the file, the field path and the reason. Also `runtimectl runtime-manifest check`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { z } from 'zod';
import { main } from '../../../cli/main.ts';
import type { CliIo } from '../../command/command.ts';
import { SCHEMAS } from '../../../cli/schemas.ts';
import { readRuntimeManifest } from '../check.ts';
import { RUNTIME_KINDS, ScidexRuntimeManifestSchema } from '../schema.ts';

const EXAMPLE = path.resolve(import.meta.dirname, '../../../test/fixtures/runtime/scidex-runtime.yaml');
const example = () => parse(fs.readFileSync(EXAMPLE, 'utf8')) as Record<string, any>;

test("the spec's example is valid and keeps every field", () => {
  const m = readRuntimeManifest(EXAMPLE);
  assert.equal(m.artifact_ref, 'benchmark:kinase-binding');
  assert.equal(m.runtime_kind, 'space');
  assert.deepEqual(m.ports, [7860]);
  assert.deepEqual(m.resources, { cpu: 8, memory_gb: 32, gpu: 'optional' });
  assert.deepEqual(m.substrate, { registers_as: 'benchmark', result_type: 'benchmark_result', provenance_required: true });
  assert.deepEqual(m.maintainers, ['persona-jerome-lecoq', 'persona-karl-popper']);
});

test('every runtime kind and every gpu form is accepted', () => {
  for (const kind of RUNTIME_KINDS) assert.ok(ScidexRuntimeManifestSchema.safeParse({ ...example(), runtime_kind: kind }).success, kind);
  for (const gpu of [true, false, 'optional', 'required', 0, 4]) {
    assert.ok(ScidexRuntimeManifestSchema.safeParse({ ...example(), resources: { gpu } }).success, String(gpu));
  }
  assert.ok(ScidexRuntimeManifestSchema.safeParse({ artifact_ref: 'tool:pubmed-search', runtime_kind: 'mcp-server', image: 'x:1' }).success, 'minimal');
});

const BAD: Array<[string, (m: Record<string, any>) => void, string, RegExp]> = [
  ['unknown top-level key', (m) => (m.memory = 4), 'memory', /unknown key "memory"/],
  ['unknown resources key', (m) => (m.resources.memory_gib = 4), 'resources.memory_gib', /unknown key "memory_gib"/],
  ['artifact_ref without a kind', (m) => (m.artifact_ref = 'kinase-binding'), 'artifact_ref', /KIND:NAME/],
  ['missing artifact_ref', (m) => delete m.artifact_ref, 'artifact_ref', /is required/],
  ['unknown runtime_kind', (m) => (m.runtime_kind = 'lambda'), 'runtime_kind', /must be one of space, local-container/],
  ['port 0', (m) => (m.ports = [0]), 'ports[0]', /1-65535/],
  ['port 70000', (m) => (m.ports = [7860, 70000]), 'ports[1]', /1-65535/],
  ['fractional port', (m) => (m.ports = [80.5]), 'ports[0]', /whole number/],
  ['repeated port', (m) => (m.ports = [80, 80]), 'ports', /must not repeat/],
  ['negative cpu', (m) => (m.resources.cpu = -1), 'resources.cpu', /positive/],
  ['zero memory', (m) => (m.resources.memory_gb = 0), 'resources.memory_gb', /positive/],
  ['memory as text', (m) => (m.resources.memory_gb = '32G'), 'resources.memory_gb', /expected number/],
  ['gpu maybe', (m) => (m.resources.gpu = 'maybe'), 'resources.gpu', /true, false, "optional", "required" or a whole number/],
  ['inputs not a list', (m) => (m.inputs = 'target_structure'), 'inputs', /expected array/],
  ['provenance_required as text', (m) => (m.substrate.provenance_required = 'yes'), 'substrate.provenance_required', /expected boolean/],
  ['substrate without registers_as', (m) => delete m.substrate.registers_as, 'substrate.registers_as', /is required/],
  ['empty maintainers', (m) => (m.maintainers = []), 'maintainers', /at least one maintainer/],
  ['neither entrypoint nor image', (m) => (delete m.entrypoint, delete m.image), 'entrypoint', /entrypoint or an image/],
];

for (const [what, mutate, field, reason] of BAD) {
  test(`refused: ${what}, naming the file and ${field}`, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
    const file = path.join(dir, 'scidex-runtime.yaml');
    const m = example();
    mutate(m);
    fs.writeFileSync(file, stringify(m));
    assert.throws(
      () => readRuntimeManifest(file, dir),
      (error: any) => {
        assert.equal(error.code, 'RTC_ERR_MANIFEST_INVALID');
        assert.equal(error.details.field, field);
        assert.match(error.message, reason);
        assert.ok(error.message.startsWith(`scidex-runtime.yaml: ${field}: `), error.message);
        return true;
      },
    );
  });
}

test('registered as scidex-runtime and skill-frontmatter; both convert to JSON Schema', () => {
  for (const name of ['scidex-runtime', 'skill-frontmatter']) {
    const entry = SCHEMAS.find((s) => s.name === name);
    assert.ok(entry, name);
    const json = z.toJSONSchema(entry.schema) as { additionalProperties?: unknown };
    assert.equal(json.additionalProperties, false, `${name} refuses unknown keys`);
  }
});

async function run(argv: string[], cwd: string) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd, env: {} };
  return { status: await main(argv, io), stdout: () => stdout, stderr: () => stderr };
}

test('check: a valid file gives a summary and exit 0', async () => {
  const r = await run(['runtime-manifest', 'check', EXAMPLE], path.dirname(EXAMPLE));
  assert.equal(r.status, 0);
  assert.equal(
    r.stdout(),
    'scidex-runtime.yaml: valid: benchmark:kinase-binding: space; entrypoint app.py; image forge.scidex.ai/scidex-spaces/kinase-binding:v1; ports 7860; cpu 8, memory 32 GB, gpu optional; registers as benchmark; 2 maintainer(s)\n',
  );
  const json = await run(['runtime-manifest', 'check', '--json', EXAMPLE], path.dirname(EXAMPLE));
  assert.equal(json.status, 0);
  assert.equal(JSON.parse(json.stdout()).manifest.artifact_ref, 'benchmark:kinase-binding');
});

test('check: an invalid, unparsable or missing file is one line and exit 1', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  fs.writeFileSync(path.join(dir, 'bad.yaml'), stringify({ ...example(), ports: [99999] }));
  fs.writeFileSync(path.join(dir, 'broken.yaml'), 'artifact_ref: [oops\n');
  const bad = await run(['runtime-manifest', 'check', 'bad.yaml'], dir);
  assert.equal(bad.status, 1);
  assert.equal(bad.stderr(), 'runtimectl: RTC_ERR_MANIFEST_INVALID: bad.yaml: ports[0]: must be 1-65535\n');
  const broken = await run(['runtime-manifest', 'check', 'broken.yaml'], dir);
  assert.equal(broken.status, 1);
  assert.match(broken.stderr(), /^runtimectl: RTC_ERR_MANIFEST_YAML: broken\.yaml.*\n$/);
  const missing = await run(['runtime-manifest', 'check', 'nope.yaml'], dir);
  assert.equal(missing.stderr(), 'runtimectl: RTC_ERR_MANIFEST_NOT_FOUND: nope.yaml: no such file\n');
  const json = await run(['runtime-manifest', 'check', '--json', 'bad.yaml'], dir);
  assert.equal(json.status, 1);
  assert.deepEqual(JSON.parse(json.stdout()), {
    valid: false, file: 'bad.yaml', code: 'RTC_ERR_MANIFEST_INVALID', message: 'bad.yaml: ports[0]: must be 1-65535', field: 'ports[0]', reason: 'must be 1-65535',
  });
  const usage = await run(['runtime-manifest', 'check'], dir);
  assert.equal(usage.status, 2);
});
