#!/usr/bin/env -S node --no-node-snapshot
// The `runtimectl` command. isolated-vm 5 on Node 20 needs `--no-node-snapshot`; the
// shebang passes it. When Node was started some other way (`node bin/runtimectl.js`), the
// kernel stops with a one-line error instead of risking a crash later.
//
// It runs the precompiled CLI (.build/runtimectl.mjs, built by bin/build-cli.mjs at
// `npm ci` and by `npm run build`) while every source file it was built from is unchanged
// and the checkout is where it was built; otherwise the TypeScript sources through tsx, so
// editing a file never runs a stale build. RUNTIMECTL_NO_BUILD=1 always takes the sources.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freshBuild } from './build-state.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { bundle } = freshBuild(ROOT);
let main;
if (bundle) ({ main } = await import(pathToFileURL(bundle).href));
else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
// An in-process isolate thread wedged by hostile code (isolated-vm copies an unhandled
// rejection's value at the end of a task, outside any timeout) keeps the process from
// exiting even with process.exit, which waits for that thread. The command's output is
// written by now; after a grace period the process ends itself the only way left. A
// long-running command (run --every, mcp serve) resolves main only when it is done.
setTimeout(() => process.kill(process.pid, 'SIGKILL'), 3000).unref();
