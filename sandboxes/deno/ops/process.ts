/**
 * What `Deno` tells a script about its process: `pid`, `ppid`, `noColor`, `mainModule`,
 * `execPath()` (no permission in Deno 2), and the `sys` calls (`hostname()`, `loadavg()`...),
 * which need `--allow-sys=<kind>`: the sandbox never grants `sys`, so they answer Deno's
 * own NotCapable and nothing about the host leaves the broker.
 */
import { availableParallelism } from 'node:os';
import { DenoOpError } from '../../../kernel/broker/deno-error.ts';
import { Refusal } from '../../../kernel/broker/refusal.ts';
import { defineOp } from '../../../kernel/broker/op.ts';
import { record, str } from '../../../kernel/broker/args.ts';
import { valueAttempt } from '../../../kernel/broker/attempts.ts';

const SYS_KINDS = new Set(['hostname', 'loadavg', 'osRelease', 'osUptime', 'networkInterfaces', 'systemMemoryInfo', 'uid', 'gid', 'cpus', 'homedir', 'getPriority', 'setPriority', 'statfs', 'username', 'umask']);

const none = () => ({});

export const processPid = defineOp({ name: 'process.pid', mode: 'sync', parse: none, needs: () => [], run: () => process.pid });
export const processPpid = defineOp({ name: 'process.ppid', mode: 'sync', parse: none, needs: () => [], run: () => process.ppid });
// Deno reads NO_COLOR from its environment without an env permission.
export const processNoColor = defineOp({ name: 'process.noColor', mode: 'sync', parse: none, needs: () => [], run: (_a, ctx) => ctx.env.NO_COLOR !== undefined && ctx.env.NO_COLOR !== '' });
export const processMainModule = defineOp({
  name: 'process.mainModule',
  mode: 'sync',
  parse: none,
  needs: () => [],
  run: (_a, ctx) => {
    if (!ctx.mainModule) throw new DenoOpError('Error', 'this code has no main module (a plugin called by the kernel)');
    return ctx.mainModule;
  },
});
export const processExecPath = defineOp({
  name: 'process.execPath',
  mode: 'sync',
  parse: none,
  needs: () => [],
  run: (_a, ctx) => {
    if (!ctx.execPath) throw new DenoOpError('NotSupported', 'RTC_ERR_UNSUPPORTED: Deno.execPath() has no deno-compatible program in this kernel; see docs/sandbox.md, "What the sandbox supports"');
    return ctx.execPath;
  },
});

export const sysInfo = defineOp({
  name: 'sys.info',
  mode: 'sync',
  parse: (raw) => {
    const kind = str(record(raw), 'kind');
    if (!SYS_KINDS.has(kind)) throw new DenoOpError('TypeError', `unknown sys kind "${kind}"`);
    return { kind };
  },
  needs: (a) => [{ kind: 'sys', value: a.kind }],
  attempts: valueAttempt('sys', 'kind'),
  // Unreachable: `sys` is not grantable (kernel/permissions/descriptors.ts).
  run: (a) => {
    throw new Refusal('sys', a.kind, `Requires sys access to "${a.kind}", run again with the --allow-sys flag`);
  },
});

// How many threads may run at once (os.availableParallelism, navigator.hardwareConcurrency): Deno tells it without a permission.
export const sysParallelism = defineOp({ name: 'sys.parallelism', mode: 'sync', parse: none, needs: () => [], run: () => availableParallelism() });

export const PROCESS_OPS = [processPid, processPpid, processNoColor, processMainModule, processExecPath, sysInfo, sysParallelism];
