import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { AuditEvent } from '../../../kernel/broker/op.ts';
import { openEventLog } from '../../../kernel/events/event-log.ts';
import { bootstrapLedger } from '../../ledger/layout.ts';
import { openLedger } from '../../ledger/open.ts';
import { personaPaths } from '../../persona-layout/layout.ts';
import { personaBindings } from '../bindings.ts';
import { PersonaPlugins } from '../../persona/persona-plugins.ts';
import { scanRegistry } from '../../plugin-search/scan.ts';
import { emptyPermissionSet } from '../../../kernel/permissions/descriptors.ts';
import { createScriptRunner } from '../../sandbox-run/runner/script-runner.ts';
import { defaultSandboxKit } from '../../../sandboxes/index.ts';
import { personaToolRunners } from '../tool-runners.ts';
import { CACHE_DIR, events, T0, tempDir } from './helpers.ts';
import { prepareLedger } from '../../ledger/open.ts';

// The ledger runs in its plugin's isolate: built once per test process.
await prepareLedger();

const kit = defaultSandboxKit({ cacheDir: CACHE_DIR });
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of cleanups) await c();
});

const PLUGIN = `
export async function tryAll() {
  const out: Record<string, string> = {};
  const attempt = async (name: string, fn: () => Promise<unknown>) => {
    try { out[name] = JSON.stringify(await fn()); } catch (e) { out[name] = (e as Error).name + ': ' + (e as Error).message; }
  };
  const b = (globalThis as any).Runtimectl.bindings;
  await attempt('create', () => b.ledger.createTask({ title: 'Check the controls', description: 'from a plugin' }));
  await attempt('list', () => b.ledger.list());
  await attempt('append', () => b.events.append('continuous_loop_cycle', { note: 'hello', plugin: 'someone-else' }));
  await attempt('memory', async () => Object.keys(await b.memory.read() as object).sort());
  return out;
}`;

/** A persona folder, a plugin declaring `declared`, run by a persona granting `granted`. */
async function setup(declared: string[], granted: string[]) {
  const root = tempDir();
  const pluginsDir = path.join(root, 'plugins');
  mkdirSync(path.join(pluginsDir, 'binder'), { recursive: true });
  writeFileSync(
    path.join(pluginsDir, 'binder', 'plugin.yaml'),
    `id: executor.binder\nversion: 1.0.0\nkind: executor\nentry: mod.ts\ndescription: test\nbindings: [${declared.join(', ')}]\nexports: [tryAll]\n`,
  );
  writeFileSync(path.join(pluginsDir, 'binder', 'mod.ts'), PLUGIN);
  const stateDir = path.join(root, 'state');
  const paths = personaPaths(stateDir, 'ada');
  mkdirSync(paths.memoryDir, { recursive: true });
  bootstrapLedger(paths.dir, { personaId: 'ada' });
  const log = await openEventLog(paths.logFile, { now: () => new Date(T0) });
  const audits: AuditEvent[] = [];
  const directory = scanRegistry(pluginsDir);
  const plugins = new PersonaPlugins(
    {
      personaId: 'ada',
      personaDir: paths.dir,
      osSandbox: 'required',
      hidden: [stateDir],
      kit,
      tools: personaToolRunners,
      allow: emptyPermissionSet(),
      vars: {},
      env: {},
      executorCwd: paths.dir,
      otherCwd: paths.dir,
      cpuSeconds: 2,
      wallSeconds: 10,
      grantedBindings: granted,
      bindings: personaBindings(paths, 'ada', () => T0, () => log),
      audit: (e) => audits.push(e),
    },
    directory,
  );
  cleanups.push(() => plugins.dispose(), () => log.close());
  const result = (await plugins.get('executor.binder', 'executor').call('tryAll')) as Record<string, string>;
  await log.flush();
  return { result, audits, stateDir, paths };
}

test('a binding declared by the plugin and granted by the persona works, and each use is audited', async () => {
  const { result, audits, stateDir, paths } = await setup(['ledger', 'events', 'memory'], ['ledger', 'events', 'memory']);
  assert.deepEqual(JSON.parse(result.create!), { id: 'T-0001', title: 'Check the controls', state: 'proposed' });
  assert.deepEqual(JSON.parse(result.list!), [{ id: 'T-0001', title: 'Check the controls', state: 'proposed' }]);
  assert.deepEqual(JSON.parse(result.append!), { seq: 1 });
  assert.deepEqual(JSON.parse(result.memory!), ['last_cycle', 'long_term', 'medium_term', 'short_term']);
  // the task is in the persona's own ledger, stamped with the plugin and the loop's clock
  const { store } = openLedger(paths.dir, { personaId: 'ada' });
  const task = store.getTask('T-0001');
  store.close();
  assert.deepEqual([task.history[0]!.by, task.createdAt], ['executor.binder', T0]);
  // a plugin cannot write the loop's own event types, nor pose as another plugin
  const [event] = events(stateDir, 'ada');
  assert.equal(event!.type, 'plugin.continuous_loop_cycle');
  assert.deepEqual(event!.payload, { note: 'hello', plugin: 'executor.binder' });
  assert.deepEqual(
    audits.map((a) => `${a.op} ${a.permission}:${a.value} ${a.decision}`),
    [
      'binding.ledger.createTask binding:ledger granted',
      'binding.ledger.list binding:ledger granted',
      'binding.events.append binding:events granted',
      'binding.memory.read binding:memory granted',
    ],
  );
});

test('a binding the persona does not grant throws NotCapable naming the persona; the denial is audited', async () => {
  const { result, audits } = await setup(['ledger', 'events', 'memory'], ['memory']);
  assert.equal(result.create, 'NotCapable: Requires the "ledger" binding: persona "ada" does not grant it (profile bindings: [memory])');
  assert.equal(result.append, 'NotCapable: Requires the "events" binding: persona "ada" does not grant it (profile bindings: [memory])');
  assert.match(result.memory!, /^\[/);
  assert.deepEqual(audits.filter((a) => a.decision === 'denied').map((a) => a.value), ['ledger', 'ledger', 'events']);
});

test('a binding the plugin does not declare throws NotCapable naming the manifest, even when the persona grants it', async () => {
  const { result } = await setup(['memory'], ['ledger', 'events', 'memory']);
  assert.equal(result.create, 'NotCapable: Requires the "ledger" binding: plugin executor.binder does not declare it (plugin.yaml bindings: [memory])');
});

test('a script run outside any persona has no bindings: its globals are Deno\'s alone, no Runtimectl object', async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'b.ts'), 'console.log(typeof (globalThis as any).Runtimectl, Object.getOwnPropertyNames(globalThis).includes("Runtimectl"));\ntry { await (globalThis as any).Runtimectl.bindings.memory.read(); } catch (e) { console.log((e as Error).name); }\n');
  const runner = await createScriptRunner({ cacheDir: CACHE_DIR });
  cleanups.push(() => runner.close());
  const r = await runner.run({ file: 'b.ts', args: [], permissionFlags: [], cwd: dir, env: {}, profile: 'trusted' });
  assert.equal(r.stdout, 'undefined false\nTypeError\n');
});
