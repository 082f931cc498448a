/**
 * Conformance: every script in test/conformance/scripts/ runs under the real `deno run` and
 * under the sandbox with the same flags, args, cwd and environment; stdout and the exit
 * status must be identical (stderr too for scripts marked `// stderr: exact`). The sandbox
 * runs in-process through the script runner; a few end-to-end cases go through the CLI.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createScriptRunner } from '../../features/sandbox-run/runner/script-runner.ts';
import { createTestRunner } from '../../features/sandbox-run/runner/test-runner.ts';
import {
  baseEnv,
  conformanceDir,
  fill,
  freshDir,
  listScripts,
  normalizeTestReport,
  readScriptSpec,
  repoRoot,
  runDeno,
  runDenoTest,
  runProcess,
  scriptsDir,
  startServer,
  type RunOutcome,
  type ScriptSpec,
} from './harness.ts';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-conf-'));
const denoDir = path.join(work, 'deno-dir');
const server = await startServer();
const runner = await createScriptRunner();
const testRunner = await createTestRunner();

after(async () => {
  await runner.close();
  await testRunner.close();
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const scripts = listScripts();

interface Prepared {
  spec: ScriptSpec;
  flags: string[];
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

function prepare(fileName: string): Prepared {
  const spec = readScriptSpec(fileName);
  // write tests get a temp dir; both runs use the same path, emptied in between
  const cwd = spec.cwdMode === 'tmp' ? path.join(work, spec.name) : conformanceDir;
  const values = { url: server.url, port: server.port, cwd };
  return { spec, flags: fill(spec.flags, values), args: fill(spec.args, values), env: baseEnv(denoDir, spec.env), cwd };
}

async function denoRun(p: Prepared): Promise<RunOutcome> {
  if (p.spec.cwdMode === 'tmp') freshDir(p.cwd, p.spec.links);
  const deno = p.spec.mode === 'test' ? await runDenoTest(p.spec.file, p.flags, p.cwd, p.env) : await runDeno(p.spec.file, p.flags, p.args, p.cwd, p.env);
  // every script prints something under Deno: an empty stdout means the script broke
  assert.notEqual(deno.stdout, '', `${p.spec.name} printed nothing under deno (stderr: ${deno.stderr})`);
  return deno;
}

test('the suite covers at least 35 scripts and every API and flag of the supported subset', () => {
  assert.ok(scripts.length >= 35, `only ${scripts.length} scripts`);
  const sources = scripts.map((f) => fs.readFileSync(path.join(scriptsDir, f), 'utf8')).join('\n');
  const needles = [
    'Deno.readTextFile(', 'Deno.writeTextFile(', 'Deno.readFile(', 'Deno.writeFile(', 'Deno.readDir(',
    'Deno.stat(', 'Deno.lstat(', 'Deno.mkdir(', 'Deno.remove(', 'Deno.env.get(', 'Deno.env.toObject(',
    'new Deno.Command(', 'cwd:', 'env:', 'clearEnv: true', "stdin: 'null'", "stdin: 'piped'", '.output()',
    'Deno.permissions.query(', 'Deno.errors.NotCapable', 'Deno.errors.NotFound', 'Deno.errors.AlreadyExists',
    'Deno.args', 'Deno.exit(', 'Deno.cwd()', 'await fetch(', '.status', '.ok', 'headers.get(', '.text()',
    '.json()', '.arrayBuffer()', 'console.log(', 'console.error(', 'console.info(', 'console.warn(',
    'new URL(', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'crypto.getRandomValues(',
    'crypto.randomUUID(', 'structuredClone(', 'setTimeout(', 'clearTimeout(', 'queueMicrotask(',
    'throw \'', 'Promise.reject(',
  ];
  for (const needle of needles) assert.ok(sources.includes(needle), `no script uses ${needle}`);
  const flags = scripts.flatMap((f) => readScriptSpec(f).flags.map((flag) => flag.replace(/=.*$/, '')));
  for (const flag of ['--allow-read', '--allow-write', '--allow-net', '--allow-env', '--allow-run', '-A',
    '--deny-read', '--deny-write', '--deny-net', '--deny-env', '--deny-run']) {
    assert.ok(flags.includes(flag), `no script runs with ${flag}`);
  }
});

for (const fileName of scripts) {
  const p = prepare(fileName);
  test(p.spec.name, { timeout: 90_000 }, async (t) => {
    const deno = await denoRun(p);
    if (p.spec.cwdMode === 'tmp') freshDir(p.cwd, p.spec.links);
    const sandbox = p.spec.mode === 'test'
      ? await testRunner.run({ files: [p.spec.file], permissionFlags: p.flags, cwd: p.cwd, env: p.env })
      : await runner.run({ file: p.spec.file, args: p.args, permissionFlags: p.flags, cwd: p.cwd, env: p.env });
    if (p.spec.mode === 'test') {
      // durations and Deno's own stack frames differ by nature; everything else must not
      deno.stdout = normalizeTestReport(deno.stdout);
      sandbox.stdout = normalizeTestReport(sandbox.stdout);
    }
    const same = sandbox.stdout === deno.stdout && sandbox.exitCode === deno.exitCode;
    if (!same || (p.spec.compareStderr && sandbox.stderr !== deno.stderr)) {
      t.diagnostic(`flags: ${p.flags.join(' ') || '(none)'}; deno stderr: ${JSON.stringify(deno.stderr.slice(0, 600))}`);
      t.diagnostic(`sandbox stderr: ${JSON.stringify(sandbox.stderr.slice(0, 600))}; error: ${JSON.stringify("error" in sandbox ? sandbox.error : null)}`);
    }
    assert.deepEqual({ stdout: sandbox.stdout, exitCode: sandbox.exitCode }, { stdout: deno.stdout, exitCode: deno.exitCode });
    if (p.spec.compareStderr) assert.equal(sandbox.stderr, deno.stderr);
  });
}

// End to end: the real CLI (one node process each) gives the same stdout and exit status.
function runCli(p: Prepared, extra: string[] = []): Promise<RunOutcome> {
  const argv = ['--no-node-snapshot', path.join(repoRoot, 'bin', 'runtimectl.js'), 'sandbox', 'run', ...extra, ...p.flags, p.spec.file, ...p.args];
  return runProcess(process.execPath, argv, { cwd: p.cwd, env: p.env, timeoutMs: 60_000 });
}

function scriptNamed(prefix: string): string {
  const found = scripts.find((f) => f.startsWith(prefix));
  assert.ok(found, `no script ${prefix}*`);
  return found;
}

test('cli: sandbox run of a deny-over-allow script matches deno run', { timeout: 90_000 }, async () => {
  const p = prepare(scriptNamed('21-'));
  const deno = await denoRun(p);
  const cli = await runCli(p);
  assert.deepEqual({ stdout: cli.stdout, exitCode: cli.exitCode }, { stdout: deno.stdout, exitCode: deno.exitCode });
});

test('cli: sandbox run of a fetch script with args matches deno run', { timeout: 90_000 }, async () => {
  const p = prepare(scriptNamed('48-'));
  const deno = await denoRun(p);
  const cli = await runCli(p);
  assert.deepEqual({ stdout: cli.stdout, exitCode: cli.exitCode }, { stdout: deno.stdout, exitCode: deno.exitCode });
});

test('cli: sandbox run of an uncaught error matches deno run: exit 1, error on stderr', { timeout: 90_000 }, async () => {
  const p = prepare(scriptNamed('05-'));
  const deno = await denoRun(p);
  const cli = await runCli(p);
  assert.deepEqual({ stdout: cli.stdout, exitCode: cli.exitCode }, { stdout: deno.stdout, exitCode: deno.exitCode });
  assert.match(cli.stderr, /boom/);
});

function assertJsonShape(json: Record<string, unknown>): void {
  assert.deepEqual(Object.keys(json).sort(), ['error', 'exitCode', 'ok', 'stderr', 'stdout', 'usage']);
  assert.equal(typeof json.ok, 'boolean');
  assert.equal(typeof json.exitCode, 'number');
  assert.equal(typeof json.stdout, 'string');
  assert.equal(typeof json.stderr, 'string');
  const usage = json.usage as Record<string, unknown>;
  assert.deepEqual(Object.keys(usage).sort(), ['cpuMs', 'heapBytes', 'wallMs']);
  for (const v of Object.values(usage)) assert.equal(typeof v, 'number');
  if (json.error !== null) {
    const error = json.error as Record<string, unknown>;
    assert.equal(typeof error.name, 'string');
    assert.equal(typeof error.message, 'string');
  }
}

test('cli --json: one JSON object with the uncaught error, same stdout and exit as deno run', { timeout: 90_000 }, async () => {
  const p = prepare(scriptNamed('05-'));
  const deno = await denoRun(p);
  const cli = await runCli(p, ['--json']);
  const json = JSON.parse(cli.stdout) as Record<string, unknown>;
  assertJsonShape(json);
  assert.equal(json.stdout, deno.stdout);
  assert.equal(json.exitCode, deno.exitCode);
  assert.equal(cli.exitCode, deno.exitCode);
  assert.equal(json.ok, false);
  assert.deepEqual(
    { name: (json.error as { name: string }).name, message: (json.error as { message: string }).message },
    { name: 'Error', message: 'boom' },
  );
});

test('cli --json: a script that succeeds has ok true and error null', { timeout: 90_000 }, async () => {
  const p = prepare(scriptNamed('03-'));
  const deno = await denoRun(p);
  const cli = await runCli(p, ['--json']);
  const json = JSON.parse(cli.stdout) as Record<string, unknown>;
  assertJsonShape(json);
  assert.deepEqual({ ok: json.ok, exitCode: json.exitCode, stdout: json.stdout, error: json.error }, { ok: true, exitCode: 0, stdout: deno.stdout, error: null });
  assert.equal(cli.exitCode, 0);
});
