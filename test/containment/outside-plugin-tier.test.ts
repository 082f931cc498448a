/**
 * Issue 24 item 5: a third-party plugin runs in the isolating tier unless an operator grants
 * more. A tool plugin in a --plugins-dir folder whose manifest asks for `sandbox: trusted` (the
 * kernel's own process) gets the process tier: its isolate lives in a sandbox host process, a
 * child of the kernel, so killing that process or blowing up its heap fails the call with a
 * named error while the kernel keeps serving. Listed in a persona profile's `trust:`, the same
 * plugin runs in-process (no child to kill: the call completes). A grant naming a plugin that
 * is not there is refused at start in one line; `plugins list` says what each outside plugin
 * asks for and gets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../support/cli.ts';
import { tempDir } from '../../features/science-loop/test/helpers.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';

const MOD = `export function ping() { return 'pong'; }
export async function wait(args: { ms: number }) { await new Promise((r) => setTimeout(r, args.ms)); return 'waited'; }
// The memory bomb that aborts a whole V8 process (isolated-vm #527): in-process it would take the kernel with it.
export function bomb() { const a: number[] = []; for (let i = 0; ; i++) a.push(i + 0.5); }
`;

function outsidePlugin(dir: string): string {
  const plugins = path.join(dir, 'third-party');
  const folder = path.join(plugins, 'tool-eager');
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    path.join(folder, 'plugin.yaml'),
    `id: tool.eager
version: 1.0.0
kind: tool
entry: mod.ts
description: A third-party tool that asks to run in the kernel's own process.
sandbox: trusted
limits: { memoryMb: 32, cpuMs: 1500, wallMs: 30000 }
exports: [ping, wait, bomb]
tools:
  - { export: ping, description: answers pong }
  - { export: wait, description: waits, input_schema: { type: object, properties: { ms: { type: number } }, required: [ms], additionalProperties: false } }
  - { export: bomb, description: exhausts its heap }
`,
  );
  writeFileSync(path.join(folder, 'mod.ts'), MOD);
  return plugins;
}

function persona(dir: string, id: string, extra = ''): string {
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(file, `id: ${id}\nruntime: agent-${id}\nharness: continuous-science-loop\nexecutor: { plugin: executor.none }\ntools: [tool.eager]\nbudget: { cpu_seconds_per_cycle: 2 }\n${extra}`);
  return file;
}

/** Sandbox host processes (pool/host-loader.cjs) that are children of this process now. */
function sandboxHosts(): Set<number> {
  const out = new Set<number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('host-loader.cjs')) out.add(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * Calls `tool.eager.wait` through the CLI in this process and, while it waits, kills every
 * sandbox host process the call started: what the kill did to the call says where it ran.
 */
async function waitWhileKillingHosts(args: string[]): Promise<{ status: number; stdout: string; stderr: string; killed: number }> {
  const before = sandboxHosts();
  const call = runCli(['tools', 'call', ...args, 'tool.eager.wait', '--args', '{"ms":15000}', '--json'], { env: { PATH: process.env.PATH ?? '' } });
  let killed = 0;
  const deadline = Date.now() + 14_000;
  let done = false;
  void call.then(() => (done = true));
  // The start check loads the plugin once in a throwaway host (gone within moments); the host
  // that serves the call is the next one to appear.
  const order: number[] = [];
  const firstSeen = new Map<number, number>();
  while (!done && killed === 0 && Date.now() < deadline) {
    for (const pid of sandboxHosts()) {
      if (before.has(pid) || firstSeen.has(pid)) continue;
      firstSeen.set(pid, Date.now());
      order.push(pid);
    }
    const serving = order[1];
    if (serving !== undefined && Date.now() - firstSeen.get(serving)! > 300) {
      try {
        process.kill(serving, 'SIGKILL');
        killed += 1;
      } catch {
        // it ended on its own meanwhile
      }
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  const out = await call;
  return { status: out.status, stdout: out.stdout, stderr: out.stderr, killed };
}

test('an outside plugin asking for the trusted tier runs isolated without a grant, in-process with one; a grant naming nothing is refused', async () => {
  const dir = tempDir('rtc-tier-');
  const plugins = outsidePlugin(dir);
  const state = path.join(dir, 'state');

  const listed = await runCli(['plugins', 'list', '--plugins-dir', plugins, '--json']);
  assert.equal(listed.status, 0, listed.stderr);
  const eager = (JSON.parse(listed.stdout) as { plugins: { id: string; sandbox: string; tier: string; first_party: boolean; asks_for?: string }[] }).plugins.find((p) => p.id === 'tool.eager')!;
  assert.deepEqual([eager.sandbox, eager.tier, eager.first_party, eager.asks_for], ['default', 'process', false, 'trusted']);
  const firstParty = (JSON.parse(listed.stdout) as { plugins: { id: string; tier: string; first_party: boolean }[] }).plugins.find((p) => p.id === 'phase.round-robin')!;
  assert.deepEqual([firstParty.tier, firstParty.first_party], ['in-process', true], 'a plugin of the checkout keeps the profile it asks for');

  // No grant: the call runs in a sandbox host process. Killing it fails the call with a named
  // error; the kernel (this very process) is untouched and calls again.
  const plain = persona(dir, 'plain');
  const common = ['--persona', plain, '--state-dir', state, '--plugins-dir', plugins];
  const isolated = await waitWhileKillingHosts(common);
  assert.ok(isolated.killed >= 1, `the plugin had a sandbox host process of its own: ${isolated.status} ${isolated.stdout} ${isolated.stderr}`);
  assert.equal(isolated.status, 1, isolated.stdout + isolated.stderr);
  // (killed while it waits: the call's error; killed while it was still starting: the command's one line)
  const code = isolated.stdout ? (JSON.parse(isolated.stdout) as { code: string }).code : /^runtimectl: (RTC_ERR_\w+): /.exec(isolated.stderr)?.[1];
  assert.match(code ?? '', /^RTC_ERR_SANDBOX_(CRASHED|MEMORY)$/, isolated.stdout + isolated.stderr);
  assert.doesNotMatch(isolated.stderr, /internal error/);
  const again = await runCli(['tools', 'call', ...common, 'tool.eager.ping', '--json'], { env: { PATH: process.env.PATH ?? '' } });
  assert.equal(again.status, 0, again.stdout + again.stderr);
  assert.equal((JSON.parse(again.stdout) as { result: unknown }).result, 'pong');

  // Its heap blown, through the real CLI: a named error, exit 1, no signal; the next call answers.
  const bin = path.join(PROJECT_ROOT, 'bin', 'runtimectl.js');
  const env = { ...process.env, RUNTIMECTL_PLUGIN_PATH: plugins };
  const blown = spawnSync(process.execPath, ['--no-node-snapshot', bin, 'tools', 'call', '--persona', plain, '--state-dir', state, 'tool.eager.bomb', '--json'], { encoding: 'utf8', env, cwd: dir, timeout: 120_000 });
  assert.equal(blown.signal, null, `the kernel process was not killed (${blown.signal})`);
  assert.equal(blown.status, 1, blown.stderr);
  assert.match((JSON.parse(blown.stdout) as { code: string }).code, /^RTC_ERR_SANDBOX_(MEMORY|CRASHED|CPU|WALL)$/);
  const after = await runCli(['tools', 'call', ...common, 'tool.eager.ping', '--json'], { env: { PATH: process.env.PATH ?? '' } });
  assert.equal((JSON.parse(after.stdout) as { result: unknown }).result, 'pong');

  // The operator's grant: the same plugin runs in the kernel's process (no host to kill: the call completes).
  const granted = persona(dir, 'granted', 'trust: [tool.eager]\n');
  const inProcess = await waitWhileKillingHosts(['--persona', granted, '--state-dir', state, '--plugins-dir', plugins]);
  assert.equal(inProcess.killed, 0, 'no sandbox host process served it');
  assert.equal(inProcess.status, 0, inProcess.stdout + inProcess.stderr);
  assert.equal((JSON.parse(inProcess.stdout) as { result: unknown }).result, 'waited');

  // A grant must name a plugin that is there: one line at start, with the near miss.
  const typo = persona(dir, 'typo', 'trust: [tool.eagre]\n');
  const refused = await runCli(['tools', 'call', '--persona', typo, '--state-dir', state, '--plugins-dir', plugins, 'tool.eager.ping'], { env: { PATH: process.env.PATH ?? '' } });
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /^runtimectl: RTC_ERR_PERSONA_START: persona typo: .*typo\.yaml: trust\[0\]: tool\.eagre \(did you mean "tool\.eager"\?\) is not an installed plugin nor the id of a selected skill's plugin\.yaml; a grant must name the plugin it trusts\n$/);
  // ... and the profile schema itself refuses a malformed one.
  const bad = persona(dir, 'bad', 'trust: [tool.eager, tool.eager]\n');
  const malformed = await runCli(['tools', 'call', '--persona', bad, '--state-dir', state, '--plugins-dir', plugins, 'tool.eager.ping'], { env: { PATH: process.env.PATH ?? '' } });
  assert.equal(malformed.status, 1);
  assert.match(malformed.stderr, /bad\.yaml: trust: names a plugin twice/);
  assert.equal(malformed.stderr.trim().split('\n').length, 1);
});
