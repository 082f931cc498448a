/**
 * A process that made isolates ends through C exit() rather than Node's heap teardown
 * (sandboxes/isolate/exit-without-teardown.ts says why: an isolated-vm assertion at exit). What
 * that must not cost: the exit code the process set, `exit` listeners registered later (the
 * CLI's, the test runner's), and output still being written. One child process runs all three.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { test } from 'node:test';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const MODULE = pathToFileURL(path.join(ROOT, 'sandboxes', 'isolate', 'exit-without-teardown.ts')).href;

function runChild(body: string): { status: number | null; signal: string | null; stdout: string; stderr: string } {
  const script = `
    import ivm from 'isolated-vm';
    const { exitWithoutHeapTeardown } = await import(${JSON.stringify(MODULE)});
    // handles of isolated-vm objects left in Node's heap, as a kernel leaves them
    const isolate = new ivm.Isolate({ memoryLimit: 16 });
    const context = isolate.createContextSync();
    globalThis.kept = [context.global, new ivm.Reference(() => 1), new ivm.ExternalCopy({ a: 1 })];
    exitWithoutHeapTeardown();
    ${body}
  `;
  const result = spawnSync(process.execPath, ['--no-node-snapshot', '--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', maxBuffer: 8 << 20 });
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

test('the exit code, later exit listeners and all output survive the shortened exit', () => {
  const run = runChild(`
    process.on('exit', () => process.stdout.write('\\nlate listener ran\\n'));
    setTimeout(() => {
      process.stdout.write('x'.repeat(1 << 20));
      process.exitCode = 7;
    }, 10);
  `);
  assert.equal(run.signal, null, run.stderr);
  assert.equal(run.status, 7, run.stderr);
  assert.equal(run.stdout.length, (1 << 20) + '\nlate listener ran\n'.length);
  assert.match(run.stdout, /late listener ran\n$/);
});

test('an uncaught error or unhandled rejection still ends the process with code 1 and its report', () => {
  // Node emits exit before it prints the error: leaving early there would lose the report
  for (const body of [`setTimeout(() => { throw new Error('boom from the child'); }, 10);`, `Promise.reject(new Error('boom from the child'));`]) {
    const run = runChild(body);
    assert.equal(run.signal, null, run.stderr);
    assert.equal(run.status, 1, body);
    assert.match(run.stderr, /boom from the child/, body);
  }
});
