/**
 * Containment: every hostile script in `scripts/` runs in ONE runner of ONE kernel process
 * (this test process), one after another, and after each one a benign canary must still
 * print 2. Each run must reach no host object (no marker line, no /tmp/rtc-escaped-* file),
 * end within its wall limit plus a grace (a hang guard, not a speed assertion), and end the
 * way its header says (a named limit error, an ordinary error, or a clean exit).
 *
 * The first test uses the process-pool tier (`default` profile, for untrusted code); the
 * second runs the scripts marked `@tier: trusted` in the in-process tier.
 */
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createScriptRunner } from '../../features/sandbox-run/runner/script-runner.ts';
import type { ScriptLimits, ScriptRunResult } from '../../features/sandbox-run/runner/script-run-types.ts';
import { ESCAPE_FILE_PREFIX, ESCAPE_MARK, describeRun, fillPlaceholders, loadHostileScripts, outcomeProblems, prepareWorkspace, snapshot } from './hostile-scripts.ts';
import type { HostileScript, Workspace } from './hostile-scripts.ts';

const LIMITS: ScriptLimits = {
  memoryMb: 64,
  cpuMs: 1000,
  wallMs: 3000,
  outputBytes: 1024 * 1024,
  transferBytes: 4 * 1024 * 1024,
};
/** A run may overrun its wall limit by this much (teardown, respawn) before it counts as a hang. */
const GRACE_MS = 3000;
/** Room for the runner's own one-line error report beyond the script's output cap. */
const OUTPUT_SLACK_BYTES = 64 * 1024;
/** How far the kernel's RSS may grow over the whole suite (the isolates live in other processes). */
const KERNEL_RSS_GROWTH_MAX = 512 * 1024 * 1024;
/** With every runner closed the kernel must be idle: CPU it may use while sampled (GC, timers). */
const IDLE_SAMPLE_MS = 1500;
const IDLE_CPU_MAX_MS = 300;

type Runner = Awaited<ReturnType<typeof createScriptRunner>>;

const scripts = loadHostileScripts();

function escapeFiles(): string[] {
  return fs.readdirSync('/tmp').filter((name) => name.startsWith(ESCAPE_FILE_PREFIX));
}

/** Runs one script, never waiting longer than its wall limit plus the grace (then `null`). */
async function runGuarded(
  runner: Runner,
  file: string,
  cwd: string,
  profile: string,
  grant: { flags: string[]; env: Record<string, string>; args: string[] } = { flags: [], env: {}, args: [] },
): Promise<{ result: ScriptRunResult | null; ms: number; late: Promise<unknown> }> {
  const started = performance.now();
  const run = runner.run({ file, args: grant.args, permissionFlags: grant.flags, cwd, env: grant.env, profile, limits: LIMITS });
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), LIMITS.wallMs + GRACE_MS);
  });
  const result = await Promise.race([run, hang]);
  clearTimeout(timer);
  return { result, ms: performance.now() - started, late: run.catch(() => undefined) };
}

async function checkCanary(runner: Runner, canary: string, cwd: string, profile: string, after: string): Promise<void> {
  const { result, ms } = await runGuarded(runner, canary, cwd, profile);
  assert.ok(result, `canary after ${after} did not end within ${LIMITS.wallMs + GRACE_MS} ms: the kernel stopped serving`);
  assert.equal(result.stdout, '2\n', `canary after ${after}: stdout ${JSON.stringify(result.stdout)} stderr ${JSON.stringify(result.stderr)} (${describeRun(result, ms)})`);
  assert.equal(result.exitCode, 0, `canary after ${after}: ${describeRun(result, ms)}`);
  assert.equal(result.ok, true, `canary after ${after}: ${describeRun(result, ms)}`);
}

/** The script's grant and folders: with `@flags` or `@setup`, a fresh workspace of its own. */
function grantFor(script: HostileScript, cwd: string): { cwd: string; w: Workspace | null; grant: { flags: string[]; env: Record<string, string>; args: string[] } } {
  if (script.flags.length === 0 && script.setup.length === 0 && script.env.length === 0) return { cwd, w: null, grant: { flags: [], env: {}, args: [] } };
  const w = prepareWorkspace(script, fs.mkdtempSync(path.join(os.tmpdir(), `rtc-hostile-${script.name.slice(0, 2)}-`)));
  const env: Record<string, string> = {};
  for (const pair of script.env) {
    const eq = pair.indexOf('=');
    env[pair.slice(0, eq)] = fillPlaceholders(pair.slice(eq + 1), w);
  }
  return { cwd: w.work, w, grant: { flags: script.flags.map((f) => fillPlaceholders(f, w)), env, args: [w.work, w.outside] } };
}

async function runHostile(t: TestContext, runner: Runner, script: HostileScript, canary: string, cwd: string, profile: string): Promise<void> {
  const setup = grantFor(script, cwd);
  const outsideBefore = setup.w ? snapshot(setup.w.outside) : [];
  const { result, ms, late } = await runGuarded(runner, script.file, setup.cwd, profile, setup.grant);
  const problems: string[] = [];
  if (setup.w) {
    const outsideAfter = snapshot(setup.w.outside);
    if (outsideAfter.join('\n') !== outsideBefore.join('\n')) problems.push(`changed the folder outside its grant: ${JSON.stringify(outsideAfter)} (was ${JSON.stringify(outsideBefore)})`);
  }
  if (!result) {
    problems.push(`did not end within its wall limit + grace (${LIMITS.wallMs + GRACE_MS} ms)`);
    // give the runner a little longer, so the canary below tells whether it recovered
    await Promise.race([late, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  } else {
    t.diagnostic(describeRun(result, ms));
    if (result.stdout.includes(ESCAPE_MARK) || result.stderr.includes(ESCAPE_MARK)) {
      const line = [...result.stdout.split('\n'), ...result.stderr.split('\n')].find((l) => l.includes(ESCAPE_MARK));
      problems.push(`reached a host object: ${line}`);
    }
    if (ms >= LIMITS.wallMs + GRACE_MS) problems.push(`took ${Math.round(ms)} ms, past wall limit + grace`);
    const written = result.stdout.length + result.stderr.length;
    if (written > LIMITS.outputBytes + OUTPUT_SLACK_BYTES) problems.push(`wrote ${written} bytes, past the ${LIMITS.outputBytes}-byte output cap`);
    problems.push(...outcomeProblems(script, result));
  }
  const files = escapeFiles();
  if (files.length > 0) problems.push(`left ${files.map((f) => `/tmp/${f}`).join(', ')} behind`);
  await checkCanary(runner, canary, cwd, profile, script.name);
  if (setup.w) fs.rmSync(path.dirname(setup.w.work), { recursive: true, force: true });
  const summary = result ? `${describeRun(result, ms)}\n  stderr: ${JSON.stringify(result.stderr.slice(0, 400))}` : 'no result';
  assert.deepEqual(problems, [], `${script.name}: ${summary}`);
}

function workspace(): { cwd: string; canary: string } {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  const canary = path.join(cwd, 'canary.js');
  fs.writeFileSync(canary, 'console.log(1 + 1);\n');
  return { cwd, canary };
}

test('the hostile scripts are many and each states its attack and expected outcome', () => {
  assert.ok(scripts.length >= 30, `only ${scripts.length} hostile scripts`);
  for (const script of scripts) assert.ok(script.attack.length > 0, `${script.name}: no // @attack: line`);
});

test('every hostile script stays contained in the process-pool tier, and one kernel keeps serving', { timeout: 20 * 60_000 }, async (t) => {
  for (const stale of escapeFiles()) fs.rmSync(path.join('/tmp', stale), { force: true, recursive: true });
  const { cwd, canary } = workspace();
  const rssBefore = process.memoryUsage().rss;
  const runner = await createScriptRunner();
  try {
    await checkCanary(runner, canary, cwd, 'default', 'start-up');
    for (const script of scripts) {
      await t.test(script.name, async (st) => runHostile(st, runner, script, canary, cwd, script.profile ?? 'default'));
    }
    await checkCanary(runner, canary, cwd, 'default', 'the whole suite');
  } finally {
    await runner.close();
    fs.rmSync(cwd, { recursive: true, force: true });
  }
  // this process is the kernel: it is still here to measure itself, and it did not swell
  const rssAfter = process.memoryUsage().rss;
  t.diagnostic(`kernel RSS ${Math.round(rssBefore / 2 ** 20)} MiB -> ${Math.round(rssAfter / 2 ** 20)} MiB`);
  assert.ok(rssAfter - rssBefore < KERNEL_RSS_GROWTH_MAX, `kernel RSS grew by ${Math.round((rssAfter - rssBefore) / 2 ** 20)} MiB`);
});

// The trusted tier runs isolates inside the kernel process itself. The memory bombs (array
// fill, big strings and buffers, WebAssembly memory, huge sources) are left out on purpose:
// a fatal V8 OOM in an isolate can abort the whole process (isolated-vm issue #527), which is
// exactly why untrusted code goes to the process-pool tier. Loops, ReDoS, recursion, getters
// and escape attempts must be contained here too.
test('the trusted in-process tier contains the non-fatal hostile scripts too', { timeout: 20 * 60_000 }, async (t) => {
  const trusted = scripts.filter((script) => script.trusted);
  assert.ok(trusted.length >= 15, `only ${trusted.length} scripts are marked for the trusted tier`);
  for (const stale of escapeFiles()) fs.rmSync(path.join('/tmp', stale), { force: true, recursive: true });
  const { cwd, canary } = workspace();
  const runner = await createScriptRunner();
  try {
    await checkCanary(runner, canary, cwd, 'trusted', 'start-up');
    for (const script of trusted) {
      await t.test(script.name, async (st) => runHostile(st, runner, script, canary, cwd, 'trusted'));
    }
  } finally {
    await runner.close();
    fs.rmSync(cwd, { recursive: true, force: true });
  }
});

// A stopped isolate must really stop. Measured last, with both runners closed: the kernel
// process should be idle. An isolate thread that is still spinning also keeps this process
// from ever exiting (even process.exit() waits for isolated-vm's at-exit disposal), so
// after failing, the test kills its own process: `npm test` then reports this file as
// failed instead of hanging for ever.
test('after the runners close, nothing keeps running in the kernel process', async () => {
  await new Promise((resolve) => setTimeout(resolve, 500));
  const before = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, IDLE_SAMPLE_MS));
  const used = process.cpuUsage(before);
  const cpuMs = (used.user + used.system) / 1000;
  if (cpuMs > IDLE_CPU_MAX_MS) setTimeout(() => process.kill(process.pid, 'SIGKILL'), 1000);
  assert.ok(cpuMs <= IDLE_CPU_MAX_MS, `the kernel process used ${Math.round(cpuMs)} ms of CPU in ${IDLE_SAMPLE_MS} ms with every runner closed: a stopped isolate is still running`);
});
