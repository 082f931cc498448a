import { isMainThread } from 'node:worker_threads';

/**
 * Once a process has made an isolate, it ends through C `exit()` instead of Node's own heap
 * teardown. Why: when the process ends naturally while V8 is in the middle of incremental
 * marking, Node's teardown (`~NodeMainInstance → ~IsolateData → Heap::DetachCppHeap`) finishes
 * the marking with a full GC, which runs the weak callbacks of isolated-vm's handle objects
 * (`ivm::ClassHandle::WeakCallback`) after isolated-vm's environment was already freed by
 * Node's cleanup hooks: `IsolateEnvironment::GetCurrent(): Assertion environment != nullptr`,
 * and a finished, passing run becomes SIGABRT. Seen in CI and reproduced under load:
 * features/persistence/test/isolation.test.ts run 100 times one after another beside two
 * `node -e 'for(;;){}'` processes aborted 3 times without this module and 0 times in 200 runs
 * with it; the backtrace of the core file is the chain quoted above.
 *
 * `process.exit` called from an `exit` listener does not emit `exit` again; it goes straight to
 * `exit()`, skipping the heap teardown (and with it the race). Standard output and error are
 * synchronous for files and pipes on Linux, so nothing written is lost. The listener must run
 * last, after every other `exit` listener: it is moved to the end each time the event loop
 * drains (`beforeExit`), which is when Node's test runner reports and the CLI sets its code.
 * An explicit `process.exit()` elsewhere already skips the teardown.
 */
let installed = false;

export function exitWithoutHeapTeardown(): void {
  if (installed || !isMainThread) return;
  installed = true;
  // An uncaught error emits `exit` before Node prints it, then ends through exit() itself
  // (no heap teardown on that path): leave that exit to Node, or the report would be lost.
  let fatal = false;
  process.on('uncaughtExceptionMonitor', () => {
    if (process.listenerCount('uncaughtException') === 0) fatal = true;
  });
  const exitNow = (code: number): void => {
    if (fatal) return;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : code);
  };
  const moveToEnd = (): void => {
    process.removeListener('exit', exitNow);
    process.on('exit', exitNow);
  };
  moveToEnd();
  process.on('beforeExit', moveToEnd);
}
