/**
 * Ops come in extensions (kernel/broker/extension.ts): the kernel's own bindings and the ones
 * the composition hands in (sandboxes/deno: Deno's surface and the subprocess ops; a gate
 * run's bindings; the storage bindings). A broker answers only what its table holds, a
 * composition that registers one op twice is refused when the table is made, and nothing the
 * shim asks for was lost when the ops left the kernel.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { CapabilityBroker } from '../../kernel/broker/broker.ts';
import { brokerContext, profileLayer } from '../../kernel/broker/context.ts';
import { opTable } from '../../kernel/broker/extension.ts';
import { KERNEL_BINDING_OPS } from '../../kernel/broker/bindings.ts';
import { PERSISTENCE_BINDING_OPS } from '../../features/persistence/storage/binding-ops.ts';
import { GATE_BINDING_OPS } from '../../features/gate/binding-ops.ts';
import { isKernelError } from '../../kernel/errors.ts';
import { loadSandboxProfile } from '../../kernel/manifest/sandbox-profile.ts';
import { allPermissionSet } from '../../kernel/permissions/descriptors.ts';
import { flagsLayer } from '../../kernel/permissions/parse-flags.ts';
import { PluginInstance } from '../../features/plugin-host/plugin-instance.ts';
import { loadPlugin } from '../../features/plugin-search/scan.ts';
import { DENO_EXTENSIONS, DENO_OPS, DENO_RUN_OPS } from '../../sandboxes/deno/index.ts';
import { defaultSandboxKit } from '../../sandboxes/index.ts';

/** Every extension some composition hands in, and the kernel's own: the ops any plugin or script may be served. */
const EVERY_EXTENSION = [KERNEL_BINDING_OPS, ...DENO_EXTENSIONS, PERSISTENCE_BINDING_OPS, GATE_BINDING_OPS];
const DENO_SURFACE_OPS = DENO_EXTENSIONS[0]!;

const SHIM_DIR = path.resolve(import.meta.dirname, '../../sandboxes/shim');
/** Ops the isolate runtime answers itself (isolate-runtime.ts) and the broker's reports of attempts (broker.ts): in no table. */
const NOT_BROKER_OPS = new Set(['io.write', 'main.settled', 'process.exit', 'process.memoryUsage', 'process.uncaught', 'sandbox.limit', 'shim.part', 'timer.cancel', 'timer.ref', 'timer.sleep', 'attempt.unanswered', 'attempt.unsupported']);

function shimSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? shimSources(file) : file.endsWith('.ts') ? [readFileSync(file, 'utf8')] : [];
  });
}

function broker(ops: ReturnType<typeof opTable>): CapabilityBroker {
  const work = mkdtempSync(path.join(os.tmpdir(), 'rtc-ops-'));
  const profile = loadSandboxProfile('default');
  return new CapabilityBroker(brokerContext({ subject: 'ops', layers: [flagsLayer(['-A'], work), profileLayer(profile, work)], cwd: work, env: { PATH: process.env.PATH ?? '' }, profile, limits: profile.limits }), ops);
}

test('two extensions naming one op are refused when the table is made, naming the op and both extensions', () => {
  const again = { name: 'again', ops: [DENO_RUN_OPS.ops[0]!] };
  assert.throws(() => opTable([DENO_SURFACE_OPS, DENO_RUN_OPS, again]), (error: unknown) => {
    assert.ok(isKernelError(error));
    assert.equal(error.code, 'RTC_ERR_BROKER_DUPLICATE_OP');
    assert.equal(error.internal, true, 'a composition bug, not bad input');
    assert.match(error.message, /"run\.output" is registered by both the deno\.run and the again extension/);
    return true;
  });
});

test('a broker answers only the ops of its table: without the sandbox extension, run.output is an unknown op', async () => {
  const without = broker(opTable([DENO_SURFACE_OPS]));
  await assert.rejects(without.async('run.output', JSON.stringify({ command: 'true', args: [] })), (error: unknown) => isKernelError(error) && error.code === 'RTC_ERR_BROKER_UNKNOWN_OP' && /"run\.output"/.test(error.message));
  // ...and the same call with the extension gets to the op (an ungranted program is Deno's NotFound or a refusal, never unknown).
  const answer = JSON.parse(await broker(DENO_OPS).async('run.output', JSON.stringify({ command: 'no-such-program-rtc', args: [] }))) as { err?: { class: string } };
  assert.equal(answer.err?.class, 'NotFound');
});

test('every op the shim asks the broker for is in the table a script or plugin runs with', () => {
  const asked = new Set<string>();
  for (const text of shimSources(SHIM_DIR)) for (const m of text.matchAll(/call(?:Sync|Async)(?:<[^>]*>)?\(['"]([a-zA-Z][\w.-]+)['"]/g)) asked.add(m[1]!);
  assert.ok(asked.has('run.output') && asked.has('fs.readTextFile'), 'the scan finds the shim\'s calls');
  // A script's table is the Deno extensions; a plugin's adds the bindings its composition serves.
  const every = opTable(EVERY_EXTENSION);
  const missing = [...asked].filter((op) => !NOT_BROKER_OPS.has(op) && !every.has(op)).sort();
  assert.deepEqual(missing, []);
  const notDeno = [...asked].filter((op) => !NOT_BROKER_OPS.has(op) && !DENO_OPS.has(op) && !op.startsWith('binding.')).sort();
  assert.deepEqual(notDeno, [], 'every Deno API the shim offers is in the Deno extensions');
  // The two Deno extensions split the ops between them: none is in both, none is lost.
  assert.equal(DENO_OPS.size, DENO_SURFACE_OPS.ops.length + DENO_RUN_OPS.ops.length);
  assert.deepEqual(DENO_OPS.extensions.map((e) => e.name), ['deno', 'deno.run']);
});

test("a plugin's broker answers the kit's extensions besides the kernel's own bindings", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-ops-plugin-'));
  writeFileSync(path.join(dir, 'plugin.yaml'), 'id: tool.ops\nversion: 1.0.0\nkind: tool\nentry: mod.ts\ndescription: test\nexports: [f]\n');
  writeFileSync(path.join(dir, 'mod.ts'), 'export function f() { return 1; }\n');
  const kit = defaultSandboxKit({ cacheDir: mkdtempSync(path.join(os.tmpdir(), 'rtc-cache-')) });
  const instance = new PluginInstance(loadPlugin(dir), { kit, allow: allPermissionSet(), cwd: dir });
  try {
    assert.deepEqual(instance.broker.ops.extensions.map((e) => e.name), ['kernel.bindings', ...kit.extensions.map((e) => e.name)]);
    for (const op of [...KERNEL_BINDING_OPS.ops, ...DENO_SURFACE_OPS.ops, ...DENO_RUN_OPS.ops]) assert.ok(instance.broker.ops.has(op.name), op.name);
    // The bindings of other compositions are not named at all: a gate's, the storage ones.
    for (const op of [...GATE_BINDING_OPS.ops, ...PERSISTENCE_BINDING_OPS.ops]) assert.equal(instance.broker.ops.has(op.name), false, op.name);
    const bare = new PluginInstance(loadPlugin(dir), { kit: { ...kit, extensions: [] }, allow: allPermissionSet(), cwd: dir });
    assert.equal(bare.broker.ops.has('run.output'), false, 'a kit without the subprocess ops gives its plugins none');
    assert.equal(bare.broker.ops.has('binding.memory.read'), true, "the kernel's own bindings are in every plugin's table");
    bare.dispose();
  } finally {
    instance.dispose();
  }
});
