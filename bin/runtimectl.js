#!/usr/bin/env -S node --no-node-snapshot
// The `runtimectl` command. isolated-vm 5 on Node 20 needs `--no-node-snapshot`; the
// shebang passes it. When Node was started some other way (`node bin/runtimectl.js`), the
// kernel stops with a one-line error instead of risking a crash later.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../kernel/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
