/**
 * Child process for concurrency.test.ts: adds COUNT tasks to one persona's ledger as fast
 * as it can, interleaved with the other writer, then exits. It prints "ready" once the
 * ledger is open and starts writing when the file GO_FILE appears, so both writers start
 * together however long each took to boot.
 * Usage: concurrent-writer.ts PERSONA_DIR BACKEND NAME COUNT GO_FILE
 */
import { existsSync } from 'node:fs';
import { openLedger, parseBackend, prepareLedger } from '../index.ts';

await prepareLedger();

const [dir, backend, name, count, go] = process.argv.slice(2);
if (dir === undefined || backend === undefined || name === undefined || count === undefined || go === undefined) throw new Error('usage: PERSONA_DIR BACKEND NAME COUNT GO_FILE');
const { store } = openLedger(dir, { backend: parseBackend(backend) });
process.stdout.write('ready\n');
const pause = new Int32Array(new SharedArrayBuffer(4));
while (!existsSync(go)) Atomics.wait(pause, 0, 0, 2);
for (let i = 0; i < Number(count); i++) {
  const task = store.addTask({ title: `${name} ${i}`, by: name, now: i });
  store.moveTask(task.id, 'ready', { by: name, now: i });
}
store.close();
