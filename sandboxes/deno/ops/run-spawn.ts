/**
 * `new Deno.Command(...).spawn()`: the same checks as `output()` (run.ts: the same parse and
 * the same `admit`: NotFound before any permission, the loader rule, the resolved path
 * granted with its canonical path not denied), the same OS sandbox (`osSandboxFor`: bubblewrap
 * planned from the grant, its network through the kernel's proxy) and the same tracker,
 * then a child held as a resource (kernel/broker/resources.ts) that
 * the script talks to through its rid: `run.read` (stdout or stderr, chunk by chunk),
 * `run.write` and `run.closeStdin`, `run.wait`, `run.kill`. Closing the resource, or the end
 * of the run, kills the child's whole process group.
 */
import { SpawnedChild, type StdioMode } from '../../subprocess/spawn-command.ts';
import { DenoOpError } from '../../../kernel/broker/deno-error.ts';
import { defineOp, type BrokerContext } from '../../../kernel/broker/op.ts';
import { resourcesOf, type Resource } from '../../../kernel/broker/resources.ts';
import { int, record, str } from '../../../kernel/broker/args.ts';
import { commandAttempts, osSandboxFor, runOutput, sandboxUnavailable, spawnFailure } from './run.ts';

interface ChildResource extends Resource {
  kind: 'child';
  /** as the script named it, for messages */
  command: string;
  child: SpawnedChild;
}

const SIGNALS = new Set(['SIGTERM', 'SIGKILL', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2', 'SIGSTOP', 'SIGCONT', 'SIGALRM', 'SIGABRT']);

function mode(value: unknown, fallback: StdioMode): StdioMode {
  if (value === undefined || value === null) return fallback;
  if (value === 'piped' || value === 'inherit' || value === 'null') return value;
  throw new DenoOpError('TypeError', `Invalid stdio option: ${String(value)}`);
}

function childOf(ctx: BrokerContext, rid: unknown): SpawnedChild {
  return resourcesOf(ctx).get<ChildResource>(rid, 'child').child;
}

export const runSpawn = defineOp({
  name: 'run.spawn',
  mode: 'sync',
  parse(raw, ctx) {
    const o = record(raw);
    return { ...runOutput.parse(raw, ctx), stdin: mode(o.stdin, 'inherit'), stdoutMode: mode(o.stdout, 'inherit'), stderrMode: mode(o.stderr, 'inherit') };
  },
  needs: () => [],
  attempts: commandAttempts,
  admit: (a, ctx, call) => runOutput.admit!(a, ctx, call),
  run(a, ctx) {
    let child: SpawnedChild;
    try {
      child = new SpawnedChild({
        // The path that was checked, absolute: no PATH is searched again.
        command: a.resolved!,
        args: a.args,
        cwd: a.cwd,
        env: a.childEnv!,
        searchPath: '',
        stdin: a.stdin,
        stdout: a.stdoutMode,
        stderr: a.stderrMode,
        wallMs: ctx.subprocess.wallMs,
        outputBytes: ctx.subprocess.outputBytes,
        sandbox: osSandboxFor(ctx, a.resolved),
        ...(ctx.os?.tracker ? { tracker: ctx.os.tracker } : {}),
      });
    } catch (error) {
      throw spawnFailure(error, a.command, ctx, 'run.spawn');
    }
    const resource: ChildResource = { kind: 'child', command: a.command, child, close: () => child.close() };
    const rid = resourcesOf(ctx).add(resource);
    return { rid, pid: child.pid };
  },
});

export const runRead = defineOp({
  name: 'run.read',
  mode: 'async',
  parse: (raw) => {
    const o = record(raw);
    const fd = int(o, 'fd', 1, 2) as 1 | 2;
    return { rid: o.rid, fd };
  },
  needs: () => [],
  async run(a, ctx) {
    const chunk = await childOf(ctx, a.rid).read(a.fd);
    return chunk === null ? null : chunk.toString('base64');
  },
});

export const runWrite = defineOp({
  name: 'run.write',
  mode: 'async',
  parse: (raw) => {
    const o = record(raw);
    return { rid: o.rid, data: Buffer.from(str(o, 'base64'), 'base64') };
  },
  needs: () => [],
  async run(a, ctx) {
    try {
      return await childOf(ctx, a.rid).write(a.data);
    } catch {
      throw new DenoOpError('Error', 'Broken pipe (os error 32)', 'EPIPE');
    }
  },
});

export const runCloseStdin = defineOp({
  name: 'run.closeStdin',
  mode: 'sync',
  parse: (raw) => ({ rid: record(raw).rid }),
  needs: () => [],
  run(a, ctx) {
    childOf(ctx, a.rid).closeStdin();
    return null;
  },
});

export const runWait = defineOp({
  name: 'run.wait',
  mode: 'async',
  parse: (raw) => ({ rid: record(raw).rid }),
  needs: () => [],
  async run(a, ctx) {
    const resource = resourcesOf(ctx).get<ChildResource>(a.rid, 'child');
    const status = await resource.child.status;
    if (status.sandboxFailure) throw sandboxUnavailable(status.sandboxFailure, resource.command, ctx, 'run.wait');
    if (status.killed === 'timeout') throw new DenoOpError('TimedOut', `the child passed its wall time limit of ${ctx.subprocess.wallMs} ms; its process group was killed`);
    if (status.killed === 'output') throw new DenoOpError('Interrupted', `the child passed its output cap of ${ctx.subprocess.outputBytes} bytes; its process group was killed`);
    // killed === 'stop' (the kernel is stopping) is answered like an exit, as output() answers it.
    return { code: status.code, signal: status.signal, success: status.code === 0 && status.signal === null };
  },
});

export const runKill = defineOp({
  name: 'run.kill',
  mode: 'sync',
  parse: (raw) => {
    const o = record(raw);
    const signal = o.signal === undefined || o.signal === null ? 'SIGTERM' : str(o, 'signal');
    if (!SIGNALS.has(signal)) throw new DenoOpError('TypeError', `Unknown signal: ${signal}`);
    return { rid: o.rid, signal: signal as NodeJS.Signals };
  },
  needs: () => [],
  run(a, ctx) {
    const child = childOf(ctx, a.rid);
    if (child.exited) throw new DenoOpError('TypeError', 'Child process has already terminated');
    child.kill(a.signal);
    return null;
  },
});

export const SPAWN_OPS = [runSpawn, runRead, runWrite, runCloseStdin, runWait, runKill];
