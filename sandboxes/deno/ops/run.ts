/**
 * `new Deno.Command(...).output()`: checked against `run` the way Deno 2.9.6 checks it, then
 * executed by the subprocess runner by the absolute path that was checked (never found
 * again on a PATH the script controls):
 *  1. the child's environment is what it will really get: the sandbox's environment (as
 *     `Deno.env.set` left it) plus `env`, or `env` alone with `clearEnv`;
 *  2. the command is resolved on that environment's PATH (the sandbox's own when it has
 *     none), relative PATH entries against Deno.cwd(), a path with a slash against `cwd`;
 *     not found is NotFound, before any permission (Deno's order);
 *  3. without the whole `run` kind, a loader variable (LD_*, DYLD_*, any case) with a value
 *     in that environment is refused, inherited or passed;
 *  4. the resolved path must be granted (run-grants.ts), and no deny may match it or its
 *     canonical path (links followed); then `cwd` must be a folder (Deno's "No such cwd");
 *  5. the child runs inside the OS sandbox planned from this same grant (its file system,
 *     its network through the kernel's proxy, each connection checked and audited here like
 *     `fetch`); a sandbox that cannot be built is a refusal, never an unsandboxed run.
 */
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { grantView } from '../../subprocess/os-sandbox/grant-view.ts';
import type { SandboxContext } from '../../subprocess/os-sandbox/plan.ts';
import { runCommand, type OsSandboxRequest } from '../../subprocess/run-command.ts';
import { gateNetPolicy } from '../../subprocess/os-sandbox/net-proxy.ts';
import { isKernelError } from '../../../kernel/errors.ts';
import { PROJECT_ROOT } from '../../../kernel/version.ts';
import { Refusal } from '../../../kernel/broker/refusal.ts';
import { canonicalCommand, resolveCommand } from '../../../kernel/permissions/run-grants.ts';
import { DenoOpError } from '../../../kernel/broker/deno-error.ts';
import { defineOp, type BrokerContext } from '../../../kernel/broker/op.ts';
import { bool, optStr, record, resolvePath, str } from '../../../kernel/broker/args.ts';
import { rawObject, type Attempt } from '../../../kernel/broker/attempts.ts';

/** Variables that change what a binary loads: Deno asks for the whole --allow-run to pass them. */
export function loaderVariables(env: Readonly<Record<string, string>>): string[] {
  return Object.keys(env)
    .filter((k) => /^(LD_|DYLD_)/i.test(k.trim()) && env[k] !== '')
    .sort();
}

function loaderMessage(names: readonly string[]): string {
  const many = names.length !== 1;
  return `Requires --allow-run permissions to spawn subprocess with ${names.join(', ')} environment variable${many ? 's' : ''}. Alternatively, spawn with ${many ? 'these' : 'the'} environment variable${many ? 's' : ''} unset.`;
}

interface RunArgs {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  clearEnv: boolean;
  input: Buffer | null;
  stdout: unknown;
  stderr: unknown;
  /** filled by admit: the environment the child gets and the program it runs */
  childEnv?: Record<string, string>;
  resolved?: string;
}

function notFound(command: string): DenoOpError {
  return new DenoOpError('NotFound', `Failed to spawn '${command}': entity not found`);
}

/** Deno's answer for a `cwd` that is missing or not a folder (after the permission check), naming the program as resolved. */
function cwdProblem(program: string, cwd: string): DenoOpError | undefined {
  let isDir: boolean;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    return new DenoOpError('NotFound', `Failed to spawn '${program}': No such cwd '${cwd}'`);
  }
  return isDir ? undefined : new DenoOpError('NotFound', `Failed to spawn '${program}': cwd is not a directory '${cwd}'`);
}

/**
 * A child that is `Deno.execPath()` is this kernel again (`runtimectl deno run|eval|test`, a
 * sandboxed run of its own): inside the same OS sandbox as any child, but with the kernel's
 * build cache bound read-write instead of hidden and the kernel's code visible read-only.
 * That kernel keeps its cache from the code it runs (its broker's kernel files) and hides it
 * from its own children, as this one does.
 */
function kernelChild(ctx: BrokerContext, resolved: string | undefined, context: SandboxContext): SandboxContext {
  if (resolved === undefined || ctx.execPath === undefined || path.resolve(resolved) !== path.resolve(ctx.execPath)) return context;
  const cache = path.dirname(path.dirname(path.resolve(ctx.execPath)));
  const isCache = (p: string) => {
    const abs = path.resolve(p);
    return abs === cache || realOf(abs) === realOf(cache);
  };
  return { ...context, hide: context.hide.filter((h) => !isCache(h)), kernelWrite: [cache], readOnly: [...(context.readOnly ?? []), PROJECT_ROOT] };
}

function realOf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** The OS sandbox request for a child of this context: its grant, the context's settings, the proxy's policy. */
export function osSandboxFor(ctx: BrokerContext, resolved?: string): OsSandboxRequest {
  const settings = ctx.os ?? { mode: 'required' as const, hide: [] };
  const { mode, tracker: _tracker, hostEnv, ...context } = settings;
  return {
    mode: mode === 'off' ? 'off' : 'bubblewrap',
    ...(hostEnv ? { hostEnv } : {}),
    grant: grantView(ctx.gate),
    context: kernelChild(ctx, resolved, context),
    net: gateNetPolicy(
      (hostPort, aliases) => ctx.gate.query('net', hostPort, aliases).state,
      (hostPort, granted) => ctx.audit({ type: 'capability', subject: ctx.subject, op: 'run.net', permission: 'net', value: hostPort, decision: granted ? 'granted' : 'denied' }),
    ),
  };
}

/**
 * What the script is told when its child could not start (output() and spawn() alike): the
 * OS sandbox could not express the grant (a refusal, audited by the broker), could not be
 * built (NotSupported, audited here), the kernel is stopping, or the OS said no.
 */
export function spawnFailure(error: unknown, command: string, ctx: BrokerContext, op: string): DenoOpError {
  const code = (error as NodeJS.ErrnoException).code;
  if (isKernelError(error) && error.code === 'RTC_ERR_OSBOX_GRANT') return new Refusal('run', command, `Failed to spawn '${command}': ${error.toLine()}`, 'os-sandbox');
  if (isKernelError(error) || code === 'EOSBOX') return sandboxUnavailable(isKernelError(error) ? error.toLine() : (error as Error).message, command, ctx, op);
  if (code === 'ESTOPPING') return new DenoOpError('Interrupted', `Failed to spawn '${command}': ${(error as Error).message}`);
  if (code === 'ENOENT') return notFound(command);
  if (code === 'EACCES') return new DenoOpError('PermissionDenied', `Failed to spawn '${command}': Permission denied (os error 13)`);
  return new DenoOpError('Error', `Failed to spawn '${command}': ${(error as Error).message}`);
}

/** bwrap missing or unable to build the sandbox: audited as a denied `run`, answered NotSupported; never an unsandboxed run. */
export function sandboxUnavailable(why: string, command: string, ctx: BrokerContext, op: string): DenoOpError {
  ctx.audit({ type: 'capability', subject: ctx.subject, op, permission: 'run', value: command, decision: 'denied', reason: 'os-sandbox' });
  return new DenoOpError('NotSupported', `Failed to spawn '${command}': ${why}`);
}

/**
 * What a spawn attempts: `run` of the program as the op would resolve it, or as written when
 * it resolves to nothing (NotFound comes before the check, as in Deno, but the attempt stays).
 */
export function commandAttempts(raw: Record<string, unknown>, ctx: BrokerContext): Attempt[] {
  if (typeof raw.command !== 'string') return [{ kind: 'run' }];
  const env = rawObject(raw.env);
  const pathOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  const searchPath = (raw.clearEnv === true ? pathOf(env.PATH) : (pathOf(env.PATH) ?? ctx.env.PATH)) ?? ctx.env.PATH ?? '';
  const cwd = typeof raw.cwd === 'string' ? path.resolve(ctx.cwd, raw.cwd) : ctx.cwd;
  let resolved: string | undefined;
  try {
    resolved = resolveCommand(raw.command, { searchPath, cwd, base: ctx.cwd });
  } catch {
    resolved = undefined;
  }
  return [{ kind: 'run', value: resolved ?? raw.command }];
}

export const runOutput = defineOp({
  name: 'run.output',
  mode: 'async',
  parse(raw, ctx): RunArgs {
    const o = record(raw);
    const args = o.args;
    if (!Array.isArray(args) || args.some((a) => typeof a !== 'string')) throw new DenoOpError('TypeError', 'args must be an array of strings');
    const env = record(o.env ?? {});
    for (const [k, v] of Object.entries(env)) if (typeof v !== 'string') throw new DenoOpError('TypeError', `env.${k} must be a string`);
    const cwd = optStr(o, 'cwd');
    const input = optStr(o, 'input');
    return {
      command: str(o, 'command'),
      args: args as string[],
      cwd: cwd === null ? ctx.cwd : resolvePath(ctx.cwd, cwd),
      env: env as Record<string, string>,
      clearEnv: bool(o, 'clearEnv'),
      input: input === null ? null : Buffer.from(input, 'base64'),
      stdout: o.stdout,
      stderr: o.stderr,
    };
  },
  needs: () => [],
  attempts: commandAttempts,
  admit(a, ctx: BrokerContext, call) {
    const childEnv = a.clearEnv ? { ...a.env } : { ...ctx.env, ...a.env };
    const resolved = resolveCommand(a.command, { searchPath: childEnv.PATH ?? ctx.env.PATH ?? '', cwd: a.cwd, base: ctx.cwd });
    if (resolved === undefined) {
      // A path is resolved against `cwd`: when that folder is the problem, Deno names it.
      if (a.command.includes('/')) {
        const program = path.resolve(a.cwd, a.command);
        if (ctx.gate.query('run', program).state === 'granted') throw cwdProblem(program, a.cwd) ?? notFound(a.command);
      }
      throw notFound(a.command);
    }
    const whole = ctx.gate.query('run');
    if (whole.state !== 'granted' || whole.partial) {
      const loaders = loaderVariables(childEnv);
      if (loaders.length > 0) call.refuse('run', loaders.join(','), loaderMessage(loaders), 'loader-variable');
    }
    const canonical = canonicalCommand(resolved);
    call.require('run', resolved, a.command, undefined, canonical === resolved ? [] : [canonical]);
    const cwdError = cwdProblem(resolved, a.cwd);
    if (cwdError) throw cwdError;
    a.childEnv = childEnv;
    a.resolved = resolved;
  },
  scoped: true,
  async run(a, ctx, call) {
    const ticket = call.ticket!;
    let result;
    try {
      result = await runCommand({
        // The path that was checked, absolute: the runner does not search any PATH again.
        command: a.resolved!,
        args: a.args,
        cwd: a.cwd,
        env: a.childEnv!,
        searchPath: '',
        input: a.input,
        wallMs: ctx.subprocess.wallMs,
        outputBytes: ctx.subprocess.outputBytes,
        signal: ticket.signal,
        sandbox: osSandboxFor(ctx, a.resolved),
        ...(ctx.os?.tracker ? { tracker: ctx.os.tracker } : {}),
      });
    } catch (error) {
      throw spawnFailure(error, a.command, ctx, 'run.output');
    }
    if (result.killed === 'timeout') throw new DenoOpError('TimedOut', `command "${a.command}" passed its wall time limit of ${ctx.subprocess.wallMs} ms; its process group was killed`);
    if (result.killed === 'output') throw new DenoOpError('Interrupted', `command "${a.command}" passed its output cap of ${ctx.subprocess.outputBytes} bytes; its process group was killed`);
    // killed === 'stop' (the kernel is stopping) is answered like an exit: the executor records the session as interrupted with what it printed.
    if (result.killed === 'aborted') throw new DenoOpError('Interrupted', `command "${a.command}" was still running when the run ended; its process group was killed`);
    const keep = (mode: unknown, data: Buffer) => (mode === 'null' || mode === 'inherit' ? '' : data.toString('base64'));
    return { code: result.code, signal: result.signal, stdout: keep(a.stdout, result.stdout), stderr: keep(a.stderr, result.stderr) };
  },
});
