/**
 * Runs conformance scripts under Deno and the sandbox and prints, for each that differs, the
 * lines that differ (deno `-`, sandbox `+`), the exit statuses and the sandbox's stderr.
 * A working aid for fixing the sandbox; the test itself is conformance.test.ts.
 *   node --no-node-snapshot --import tsx test/conformance/compare.ts [name-substring...]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createScriptRunner } from '../../features/sandbox-run/runner/script-runner.ts';
import { createTestRunner } from '../../features/sandbox-run/runner/test-runner.ts';
import { baseEnv, conformanceDir, fill, freshDir, listScripts, normalizeTestReport, readScriptSpec, runDeno, runDenoTest, startServer } from './harness.ts';

const filters = process.argv.slice(2);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-conf-'));
const server = await startServer();
const runner = await createScriptRunner();
const testRunner = await createTestRunner();
let differing = 0;
try {
  const names = listScripts().filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
  for (const fileName of names) {
    const spec = readScriptSpec(fileName);
    const cwd = spec.cwdMode === 'tmp' ? path.join(work, spec.name) : conformanceDir;
    const values = { url: server.url, port: server.port, cwd };
    const flags = fill(spec.flags, values);
    const args = fill(spec.args, values);
    const env = baseEnv(path.join(work, 'deno-dir'), spec.env);
    if (spec.cwdMode === 'tmp') freshDir(cwd, spec.links);
    const deno = spec.mode === 'test' ? await runDenoTest(spec.file, flags, cwd, env) : await runDeno(spec.file, flags, args, cwd, env);
    if (spec.cwdMode === 'tmp') freshDir(cwd, spec.links);
    const sandbox = spec.mode === 'test' ? await testRunner.run({ files: [spec.file], permissionFlags: flags, cwd, env }) : await runner.run({ file: spec.file, args, permissionFlags: flags, cwd, env });
    if (spec.mode === 'test') {
      deno.stdout = normalizeTestReport(deno.stdout);
      sandbox.stdout = normalizeTestReport(sandbox.stdout);
    }
    const stderrDiffers = spec.compareStderr && deno.stderr !== sandbox.stderr;
    if (deno.stdout === sandbox.stdout && deno.exitCode === sandbox.exitCode && !stderrDiffers) continue;
    differing++;
    console.log(`==== ${spec.name}  [${flags.join(' ')}]  exit deno ${deno.exitCode} / sandbox ${sandbox.exitCode}`);
    const a = deno.stdout.split('\n');
    const b = sandbox.stdout.split('\n');
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (a[i] === b[i]) continue;
      if (a[i] !== undefined) console.log(`- ${a[i]}`);
      if (b[i] !== undefined) console.log(`+ ${b[i]}`);
    }
    if (stderrDiffers) console.log(`stderr deno ${JSON.stringify(deno.stderr)}\nstderr sandbox ${JSON.stringify(sandbox.stderr)}`);
    if (sandbox.stderr && !stderrDiffers) console.log(`  sandbox stderr: ${sandbox.stderr.trimEnd().split('\n').slice(0, 4).join(' ⏎ ')}`);
  }
  console.log(`${differing} of ${names.length} scripts differ`);
} finally {
  await runner.close();
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
}
