/**
 * Child process for concurrency.test.ts: one operator deciding proposals P-alpha-1..COUNT
 * through the real command line (`runtimectl proposals VERB ID --by NAME`, in-process main)
 * as fast as it can, racing the other operator, who goes through them in the opposite order
 * (ORDER up or down) so the two meet somewhere in the middle. Prints "ready" once loaded,
 * starts when GO_FILE appears, and prints one JSON line: [{id, status, stderr}] in id order.
 * Usage: decider.ts STATE_DIR VERB NAME COUNT GO_FILE ORDER OPERATOR_HOME
 * (OPERATOR_HOME holds NAME's operator credential: every decision is signed.)
 */
import { existsSync } from 'node:fs';
import { main } from '../../../cli/main.ts';

const [stateDir, verb, name, count, go, order, operatorHome] = process.argv.slice(2);
if (stateDir === undefined || verb === undefined || name === undefined || count === undefined || go === undefined || order === undefined || operatorHome === undefined) {
  throw new Error('usage: STATE_DIR VERB NAME COUNT GO_FILE up|down OPERATOR_HOME');
}
process.stdout.write('ready\n');
const pause = new Int32Array(new SharedArrayBuffer(4));
while (!existsSync(go)) Atomics.wait(pause, 0, 0, 1);
const outcomes: { id: string; status: number; stderr: string }[] = [];
const numbers = Array.from({ length: Number(count) }, (_, i) => i + 1);
for (const i of order === 'down' ? numbers.reverse() : numbers) {
  const id = `P-alpha-${i}`;
  let stderr = '';
  const status = await main(['proposals', verb, id, '--by', name, '--reason', `${name} decides`, '--now', String(10_000 + i), '--state-dir', stateDir], {
    stdout: () => {},
    stderr: (t) => void (stderr += t),
    cwd: process.cwd(),
    env: { RUNTIMECTL_OPERATOR_HOME: operatorHome },
  });
  outcomes.push({ id, status, stderr: stderr.trim() });
}
outcomes.sort((a, b) => Number(a.id.split('-').at(-1)) - Number(b.id.split('-').at(-1)));
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
