/**
 * Child process for concurrency.test.ts: one operator deciding proposals P-alpha-1..COUNT
 * through the real command line (`runtimectl proposals VERB ID --by NAME`, in-process main)
 * as fast as it can, racing the other operator. Prints "ready" once loaded, starts when
 * GO_FILE appears, and prints one JSON line: [{id, status, stderr}] per proposal.
 * Usage: decider.ts STATE_DIR VERB NAME COUNT GO_FILE
 */
import { existsSync } from 'node:fs';
import { main } from '../../kernel/cli/main.ts';

const [stateDir, verb, name, count, go] = process.argv.slice(2);
if (stateDir === undefined || verb === undefined || name === undefined || count === undefined || go === undefined) throw new Error('usage: STATE_DIR VERB NAME COUNT GO_FILE');
process.stdout.write('ready\n');
const pause = new Int32Array(new SharedArrayBuffer(4));
while (!existsSync(go)) Atomics.wait(pause, 0, 0, 1);
const outcomes: { id: string; status: number; stderr: string }[] = [];
for (let i = 1; i <= Number(count); i++) {
  const id = `P-alpha-${i}`;
  let stderr = '';
  const status = await main(['proposals', verb, id, '--by', name, '--reason', `${name} decides`, '--now', String(10_000 + i), '--state-dir', stateDir], {
    stdout: () => {},
    stderr: (t) => void (stderr += t),
    cwd: process.cwd(),
    env: {},
  });
  outcomes.push({ id, status, stderr: stderr.trim() });
}
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
