/**
 * The plugin author's path: `plugins new` writes a plugin of each kind that `plugins check`
 * accepts, whose own Deno test passes under the real Deno, and that a persona selects at once
 * (from a folder outside the checkout); `plugins check` loads a bundle to catch an export the
 * manifest lists but the module lacks; an error thrown in a plugin points at its own file.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { allPermissionSet } from '../../../kernel/permissions/descriptors.ts';
import { PluginInstance } from '../../plugin-host/plugin-instance.ts';
import { scanRegistry } from '../../plugin-search/scan.ts';
import { PROJECT_ROOT } from '../../../kernel/version.ts';
import { CYCLE_EVENT } from '../../../kernel/loop/cycle-event.ts';
import { defaultSandboxKit } from '../../../sandboxes/index.ts';
import { runCli } from '../../../test/support/cli.ts';
import { CACHE_DIR, events, fakeTime, packet, profile, run, tempDir } from '../../science-loop/test/helpers.ts';
import { check, gate } from '../../gate/test/helpers.ts';
import { CONTRACT_TYPES, contractModule } from '../contract-types.ts';
import { PLUGIN_CONTRACTS } from '../../../cli/contract-catalog.ts';

const DENO = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'deno');

test('plugins new writes each kind; check accepts it, its Deno test passes, and a persona selects it at once', async () => {
  const dir = tempDir();
  const mine = path.join(dir, 'my-plugins');
  const made: Record<string, { id: string; dir: string; select: string }> = {};
  for (const kind of ['tool', 'executor', 'budget-policy', 'phase-selector', 'gate-check', 'loop-step']) {
    const r = await runCli(['plugins', 'new', '--kind', kind, 'starter', '--dir', mine, '--json']);
    assert.equal(r.status, 0, r.stderr);
    made[kind] = JSON.parse(r.stdout) as { id: string; dir: string; select: string };
    const files = ['plugin.yaml', 'mod.ts', ...(kind === 'tool' ? [] : ['contract.ts']), path.join('test', 'mod_test.ts')];
    assert.deepEqual(files.map((f) => existsSync(path.join(made[kind]!.dir, f))), files.map(() => true));
    // Nothing ties the folder to this checkout: it works wherever the checkout (or the folder) moves.
    for (const f of files) assert.ok(!readFileSync(path.join(made[kind]!.dir, f), 'utf8').includes(PROJECT_ROOT), `${kind}/${f} names no path of the checkout`);
    const manifest = readFileSync(path.join(made[kind]!.dir, 'plugin.yaml'), 'utf8');
    assert.doesNotMatch(manifest, /yaml-language-server/, 'outside the checkout no schema path is written');
    // The isolating tier: a new plugin is not the kernel's code.
    assert.match(manifest, /^sandbox: default$/m);
    const checked = await runCli(['plugins', 'check', made[kind]!.dir]);
    assert.equal(checked.status, 0, checked.stderr);
    assert.match(checked.stdout, new RegExp(`^ok +${made[kind]!.id.replace('.', '\\.')} `));
  }
  assert.deepEqual(Object.values(made).map((m) => m.id).sort(), ['budget.starter', 'executor.starter', 'gate-check.starter', 'phase.starter', 'step.starter', 'tool.starter']);
  // Inside the checkout the manifest names its schema by a relative path (for an editor).
  const inside = await runCli(['plugins', 'new', '--kind', 'tool', `scaffold-${process.pid}`, '--json']);
  assert.equal(inside.status, 0, inside.stderr);
  const insideDir = (JSON.parse(inside.stdout) as { dir: string }).dir;
  try {
    assert.match(readFileSync(path.join(insideDir, 'plugin.yaml'), 'utf8'), /^# yaml-language-server: \$schema=\.\.\/\.\.\/schemas\/plugin-manifest\.schema\.json$/m);
  } finally {
    rmSync(insideDir, { recursive: true, force: true });
  }
  // Its own test, the way Deno authors run theirs (the real Deno; no type check: the types are runtimectl's).
  if (existsSync(DENO)) {
    // Moved away from where it was written (and so from anything near the checkout), it still
    // type-checks against its own contract.ts and its tests pass.
    const moved = path.join(tempDir(), 'elsewhere');
    cpSync(mine, moved, { recursive: true });
    const env = { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' };
    const typed = spawnSync(DENO, ['check', ...Object.values(made).map((m) => path.join(moved, path.basename(m.dir), 'mod.ts'))], { encoding: 'utf8', env, cwd: moved });
    assert.equal(typed.status, 0, typed.stdout + typed.stderr);
    const deno = spawnSync(DENO, ['test', '--no-check', moved], { encoding: 'utf8', env, cwd: moved });
    assert.equal(deno.status, 0, deno.stdout + deno.stderr);
    assert.match(deno.stdout, /ok \| 6 passed \| 0 failed/);
  }
  // A name taken is refused, nothing overwritten; an unknown kind names the ones there are.
  const again = await runCli(['plugins', 'new', '--kind', 'tool', 'starter', '--dir', mine]);
  assert.equal(again.status, 1);
  assert.match(again.stderr, /RTC_ERR_PLUGIN_SCAFFOLD: .*tool-starter already exists; nothing was written/);
  const odd = await runCli(['plugins', 'new', '--kind', 'gadget', 'x', '--dir', mine]);
  assert.equal(odd.status, 2);
  assert.match(odd.stderr, /--kind gadget: plugins new writes tool, executor, budget-policy, phase-selector, gate-check, loop-step\n/);

  // Selected from the profile alone, from the outside folder: all four run in one cycle.
  const stateDir = path.join(dir, 'state');
  const ada = profile(dir, 'ada', `runtime: agent-ada
${made['tool']!.select}
${made['executor']!.select.replace('}', ', enabled: true }')}
budget: { policy: budget.starter, daily_tokens: 1000 }
${made['phase-selector']!.select}
phases: [governance_patrol, science_patrol]
bindings: [ledger, events, memory]`);
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const [r] = await run([ada], { stateDir, pluginPath: [mine], ...fakeTime() });
  assert.equal(r!.refused, undefined, String(r!.refused));
  const report = r!.reports[0]!;
  assert.equal(report.outcome, 'executed', report.defer_reason ?? '');
  assert.equal(report.executor, 'executor.starter');
  assert.equal(report.phase, 'governance_patrol');
  assert.equal(report.act.decision?.tier, 1);
  assert.equal(report.act.last_message, 'offered 2 item(s): Q; governance_patrol patrol');

  // The loop step, in a harness file beside the profile (the checkout untouched), with the
  // steps: line printed: its note is in the cycle event, with the phase an earlier step picked.
  const loops = path.join(dir, 'loops');
  mkdirSync(loops);
  const canonical = readFileSync(path.join(PROJECT_ROOT, 'policies', 'harnesses', 'continuous-science-loop.yaml'), 'utf8');
  writeFileSync(path.join(loops, 'noted.yaml'), canonical.replace(/^id: .*$/m, 'id: noted').replace(/^runtimes: .*$/m, 'runtimes: []').replace(/^steps: .*$/m, made['loop-step']!.select));
  const bea = profile(dir, 'bea', 'runtime: agent-bea\nharness: ./loops/noted.yaml\nexecutor: { plugin: executor.none }\nphases: [science_patrol]');
  const [b] = await run([bea], { stateDir, pluginPath: [mine], ...fakeTime() });
  assert.equal(b!.refused, undefined, String(b!.refused));
  const cycle = events(stateDir, 'bea').find((e) => e.type === CYCLE_EVENT)!;
  assert.equal(cycle.payload.harness, 'noted');
  assert.ok((cycle.payload.steps as string[]).includes('step.starter'), JSON.stringify(cycle.payload.steps));
  assert.deepEqual(cycle.payload.starter_note, { cycle: 1, hour_utc: new Date(fakeTime().clock()).getUTCHours(), phase: 'science_patrol' });
  // A harness file that is not there is one start line naming the profile's field.
  const lost = profile(dir, 'cal', 'runtime: agent-cal\nharness: ./loops/gone.yaml');
  const [c] = await run([lost], { stateDir, pluginPath: [mine], ...fakeTime() });
  assert.match(String(c!.refused), /harness: no harness file .*loops\/gone\.yaml \(named relative to .*cal\.yaml\)/);
});

test('plugins check loads the bundle: an export listed but not exported is refused naming the file and field', async () => {
  const dir = tempDir();
  const plugin = path.join(dir, 'executor-half');
  mkdirSync(plugin);
  writeFileSync(path.join(plugin, 'plugin.yaml'), 'id: executor.half\nversion: 1.0.0\nkind: executor\nentry: mod.ts\ndescription: half an executor\nexports: [describe, run]\n');
  writeFileSync(path.join(plugin, 'mod.ts'), 'export function describe() { return { spends_tokens: false }; }\nexport const run = 42;\n');
  const r = await runCli(['plugins', 'check', plugin]);
  assert.equal(r.status, 1);
  assert.equal(r.stderr, `refused executor.half: RTC_ERR_PLUGIN_EXPORT_MISSING: ${path.join(plugin, 'plugin.yaml')}: exports: "run" is not exported by mod.ts (it exports: describe)\n`);
});

test('an error thrown inside a plugin points at the plugin\'s own file and line, without the shim\'s frames', async () => {
  const dir = tempDir();
  const folder = path.join(dir, 'plugins', 'tool-thrower');
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'plugin.yaml'), 'id: tool.thrower\nversion: 1.0.0\nkind: tool\nentry: mod.ts\ndescription: throws\nexports: [go]\n');
  writeFileSync(path.join(folder, 'helper.ts'), '// a helper in its own file\n\nexport function deep(n: number): number {\n  if (n > 2) throw new RangeError(`too deep: ${n}`);\n  return n;\n}\n');
  writeFileSync(path.join(folder, 'mod.ts'), "import { deep } from './helper.ts';\n\nexport function go(): number {\n  return deep(3);\n}\n");
  const registry = scanRegistry(path.join(dir, 'plugins'));
  const instance = new PluginInstance(registry.find('tool.thrower'), { kit: defaultSandboxKit({ cacheDir: CACHE_DIR }), allow: allPermissionSet(), cwd: dir });
  try {
    await assert.rejects(instance.call('go'), (e: Error & { code?: string; details?: { at?: string; stack?: string }; toLine?: () => string }) => {
      assert.equal(e.code, 'RTC_ERR_SANDBOX_SCRIPT');
      assert.equal(e.details?.at, 'tool-thrower/helper.ts:4:20');
      assert.equal(e.toLine?.(), 'RTC_ERR_SANDBOX_SCRIPT: RangeError: too deep: 3 (at tool-thrower/helper.ts:4:20)');
      assert.deepEqual(e.details?.stack?.split('\n').slice(1).map((l) => l.trim()), ['at deep (tool-thrower/helper.ts:4:20)', 'at go (tool-thrower/mod.ts:4:10)']);
      return true;
    });
  } finally {
    instance.dispose();
  }
});

test('plugins new --kind gate-check writes a check a gate profile runs at once, from the printed line', async () => {
  const dir = tempDir();
  const mine = path.join(dir, 'checks');
  const r = await runCli(['plugins', 'new', '--kind', 'gate-check', 'markers', '--dir', mine]);
  assert.equal(r.status, 0, r.stderr);
  const select = /^select it: {2}(.*?) {3}\(under checks: in a gate profile\)$/m.exec(r.stdout)?.[1];
  assert.ok(select, r.stdout);
  assert.match(r.stdout, new RegExp(`^find it: +gate with --plugins-dir ${mine.replace(/[/.]/g, '\\$&')}`, 'm'));
  const profileFile = path.join(dir, 'reviewer.yaml');
  writeFileSync(profileFile, `name: reviewer
description: A reviewer's own profile with the new check.
sandbox: community-draft
checks:
  - snapshot
  ${select}
ceiling: { read: ["\${plugin}", "\${scratch}"], write: ["\${scratch}"] }
draft: { max_files: 50, max_file_bytes: 65536, max_total_bytes: 262144, max_tests: 4, max_scratch_bytes: 65536 }
`);
  const draft = (name: string, body: string) => {
    const d = path.join(dir, 'drafts', name);
    mkdirSync(d, { recursive: true });
    writeFileSync(path.join(d, 'SKILL.md'), `---\nname: ${name}\ndescription: A draft.\n---\n${body}`);
    return d;
  };
  const clean = await gate(profileFile, draft('clean', 'Count the words.\n'), ['--plugins-dir', mine]);
  assert.equal(clean.report.verdict, 'accepted');
  assert.equal(check(clean.report, 'markers').status, 'passed');
  const marked = await gate(profileFile, draft('marked', 'Count the words.\nTODO: say how.\n'), ['--plugins-dir', mine]);
  assert.equal(marked.report.verdict, 'rejected');
  assert.equal(check(marked.report, 'markers').reason, 'unfinished work is marked at SKILL.md:6');
});

test('the contract types plugins new writes are the kernel\'s own types, for every kind', async () => {
  const ts = (await import('typescript')).default;
  const dir = tempDir();
  const checks: string[] = [`import type { z } from ${JSON.stringify(path.join(PROJECT_ROOT, 'node_modules', 'zod', 'index.js'))};`];
  for (const [kind, types] of Object.entries(CONTRACT_TYPES)) {
    writeFileSync(path.join(dir, `${kind}.contract.ts`), contractModule(kind)!);
    const module = PLUGIN_CONTRACTS.find((c) => c.kind === kind)!.module;
    checks.push(`import type * as K_${kind.replace('-', '_')} from ${JSON.stringify(path.join(PROJECT_ROOT, module))};`);
    checks.push(`import type * as L_${kind.replace('-', '_')} from './${kind}.contract.ts';`);
    for (const t of types) {
      const k = `z.input<typeof K_${kind.replace('-', '_')}.${t.schemaExport}>`;
      const l = `L_${kind.replace('-', '_')}.${t.name}`;
      // each assignable to the other: the same type
      checks.push(`export const ${t.name}_same: Same<${k}, ${l}> = true;`);
    }
  }
  const file = path.join(dir, 'check.ts');
  writeFileSync(file, `type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;\n${checks.join('\n')}\n`);
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  });
  const problems = ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName.startsWith(dir));
  const text = readFileSync(file, 'utf8').split('\n');
  assert.deepEqual(problems.map((d) => `${text[d.file!.getLineAndCharacterOfPosition(d.start!).line]}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`), []);
  assert.equal(checks.filter((c) => c.includes('_same')).length, 11, 'every type of every kind was compared');
});
