#!/usr/bin/env -S node --no-node-snapshot
// The `runtimectl` command. isolated-vm 5 on Node 20 needs `--no-node-snapshot`; the
// shebang passes it. When Node was started some other way (`node bin/runtimectl.js`), the
// kernel stops with a one-line error instead of risking a crash later.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
// An in-process isolate thread wedged by hostile code (isolated-vm copies an unhandled
// rejection's value at the end of a task, outside any timeout) keeps the process from
// exiting even with process.exit, which waits for that thread. The command's output is
// written by now; after a grace period the process ends itself the only way left.
setTimeout(() => process.kill(process.pid, 'SIGKILL'), 3000).unref();
