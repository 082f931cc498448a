/**
 * The subprocess runner behind `run` grants and executor sessions: the child gets only the
 * environment it was handed (no inheritance from the kernel), a wall limit and an output cap.
 *
 * With an OS sandbox (`sandbox.mode: 'bubblewrap'`, what the broker asks for every `run`
 * grant) the child runs inside bubblewrap, its view of the file system and network planned
 * from the grant (os-sandbox/), in its own pid namespace that ends with it: nothing it starts
 * outlives it, and a kernel that dies takes the sandbox with it. Without one (`'off'`, an
 * operator's explicit opt-out, or the kernel's own tools such as the reference Deno) it runs
 * in its own process group, which is what is killed.
 *
 * A tracker (the kernel's registry of running children) hears of every start and end, may
 * refuse a start (the kernel is stopping), and may stop a child: TERM, then KILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bwrapArgs, encodeArgs } from './os-sandbox/bwrap-argv.ts';
import { searchPath } from './executable.ts';
import { locateBwrap, locateBwrapSync, type Bwrap } from './os-sandbox/bwrap.ts';
import type { GrantView } from './os-sandbox/grant-view.ts';
import { NetProxy, type NetPolicy, type NetRecord } from './os-sandbox/net-proxy.ts';
import { planSandbox, type SandboxContext, type SandboxPlan, type SandboxView } from './os-sandbox/plan.ts';
import { commandPids, signal, terminateNamespace } from './os-sandbox/process-tree.ts';

const OS_SANDBOX_DIR = path.join(import.meta.dirname, 'os-sandbox');
const INIT_SCRIPT = path.join(OS_SANDBOX_DIR, 'init.sh');

/**
 * The shell that runs init.sh: bash where there is one (it can close any descriptor the
 * kernel leaked; dash only 0-9), started with -p so that nothing of the command's environment
 * (BASH_ENV, exported functions, SHELLOPTS) runs before the descriptors are closed; else sh.
 * Resolved once, to its real path under /usr, which every sandbox shows.
 */
let initShellChoice: string[] | undefined;
function initShell(): string[] {
  if (initShellChoice) return initShellChoice;
  for (const candidate of ['/usr/bin/bash', '/bin/bash']) {
    try {
      accessSync(candidate, constants.X_OK);
      return (initShellChoice = [realpathSync(candidate), '-p']);
    } catch {
      // not here
    }
  }
  return (initShellChoice = ['/bin/sh']);
}
const BRIDGE_SCRIPT = path.join(OS_SANDBOX_DIR, 'net-bridge.cjs');
/** The bridge's port on the sandbox's private loopback (its own network namespace: nothing else is there). */
export const SANDBOX_PROXY_PORT = 3128;

export interface OsSandboxRequest {
  /** 'bubblewrap': sandboxed (refused when it cannot start); 'off': the operator opted out */
  mode: 'bubblewrap' | 'off';
  grant: GrantView;
  context: SandboxContext;
  /** asked for each connection when the grant names hosts */
  net: NetPolicy;
  /** the kernel's environment, where bwrap is looked for */
  hostEnv?: Readonly<Record<string, string | undefined>>;
}

export interface CommandRequest {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** PATH used to find a bare command name (the sandboxed code's own PATH) */
  searchPath: string;
  input: Buffer | null;
  wallMs: number;
  outputBytes: number;
  /** aborted when the run that asked for the command ends: the child (its sandbox or group) is killed */
  signal?: AbortSignal;
  sandbox?: OsSandboxRequest;
  tracker?: ChildTracker;
}

/** What a tracker holds of a running child. */
export interface ChildHandle {
  readonly pid: number;
  readonly command: string;
  readonly sandboxed: boolean;
  /** asks it to end: TERM to every process it has (the whole sandbox, or its process group) */
  terminate(): void;
  /** ends it now */
  kill(): void;
  /** sends `sig` to the command itself (not its sandbox or group), as Deno's `child.kill`; false when it cannot be found */
  signalCommand(sig: NodeJS.Signals): boolean;
}

export interface ChildTracker {
  /** throws to refuse a new child (the kernel is stopping) */
  admit(command: string): void;
  started(child: ChildHandle): void;
  /** `record`: what the OS sandbox showed and let through, when there was one */
  ended(child: ChildHandle, record?: SandboxRecord): void;
}

export interface SandboxRecord {
  mode: 'bubblewrap' | 'off';
  bwrap?: string;
  view?: SandboxView;
  net?: NetRecord;
  /** processes still running in the sandbox when the command ended (they were killed with it) */
  leftover: number | null;
}

export interface CommandResult {
  code: number;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
  /** why the runner ended the child, if it did: its limits, or a stop through the tracker */
  killed: 'timeout' | 'output' | 'stop' | 'aborted' | null;
  sandbox?: SandboxRecord;
}

/** Finds a bare command on `pathVar`; paths with a slash are used as given (the child is checked by that path). */
export function resolveExecutable(command: string, pathVar: string, cwd: string): string | undefined {
  if (command.includes('/')) return path.resolve(cwd, command);
  return searchPath(command, pathVar);
}

function enoent(message: string): Error {
  return Object.assign(new Error(message), { code: 'ENOENT' });
}

function signalNumber(name: string): number {
  return (os.constants.signals as Record<string, number>)[name] ?? 15;
}

/** How the child's three standard streams are connected. */
export interface LaunchStdio {
  stdin: 'pipe' | 'ignore';
  stdout: 'pipe' | 'ignore';
  stderr: 'pipe' | 'ignore';
}

/** What launching starts: the child, its handle, and under an OS sandbox what it sees and the proxy it talks through. */
export interface Launch {
  child: ChildProcess;
  handle: ChildHandle;
  record?: SandboxRecord;
  proxy?: NetProxy;
  /** the init script's report (`exit N left M`), when sandboxed */
  report?: Promise<string>;
}

/** The environment the sandboxed command sees: what it was given, its HOME, a private TMPDIR, the proxy. */
function sandboxEnv(env: Record<string, string>, req: OsSandboxRequest): Record<string, string> {
  const out: Record<string, string> = { ...env, TMPDIR: '/tmp' };
  if (req.context.home) out.HOME = req.context.home;
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'all_proxy', 'no_proxy']) delete out[name];
  if (req.grant.netAny) {
    const url = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
    Object.assign(out, { HTTP_PROXY: url, HTTPS_PROXY: url, ALL_PROXY: url, http_proxy: url, https_proxy: url, all_proxy: url, NO_PROXY: '', no_proxy: '' });
  }
  return out;
}

function collectText(stream: NodeJS.ReadableStream | null | undefined): Promise<string> {
  return new Promise((resolve) => {
    if (!stream) return resolve('');
    const parts: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => parts.push(chunk));
    stream.on('error', () => resolve(Buffer.concat(parts).toString('utf8')));
    stream.on('close', () => resolve(Buffer.concat(parts).toString('utf8')));
  });
}

/** The sandbox's mounts for this child: a grant the sandbox cannot express is refused here, before bwrap is looked for. */
function planFor(req: LaunchTarget, executable: string, sandbox: OsSandboxRequest): SandboxPlan {
  return planSandbox({
    grant: sandbox.grant,
    context: sandbox.context,
    executable,
    cwd: req.cwd,
    searchPath: req.searchPath,
    helpers: [OS_SANDBOX_DIR, path.dirname(process.execPath)],
  });
}

/** What a launch needs of the request: the command as given, its arguments, where and with what it runs. */
type LaunchTarget = Pick<CommandRequest, 'command' | 'args' | 'cwd' | 'env' | 'searchPath'>;

function startSandboxed(req: LaunchTarget, executable: string, sandbox: OsSandboxRequest, plan: SandboxPlan, bwrap: Bwrap, proxy: NetProxy | undefined, stdio: LaunchStdio): Launch {
  const node = process.execPath;
  // The proxy's socket folder (the kernel's, under the host's /tmp): on top of everything.
  if (proxy) plan.mounts.push({ kind: 'ro', src: proxy.dir, dest: proxy.dir });
  const argv = [...initShell(), INIT_SCRIPT, proxy ? 'net' : 'none', node, BRIDGE_SCRIPT, proxy?.socketPath ?? '-', '--', executable, ...req.args];
  const args = bwrapArgs({ plan, cwd: path.resolve(req.cwd), env: sandboxEnv(req.env, sandbox), infoFd: 4, argv });
  // bwrap gets no environment of its own (a loader variable there would run outside the
  // sandbox); the child's environment travels in the argument pipe. Its stderr is always
  // read: a mount bwrap cannot make is told there.
  const child = spawn(bwrap.path, ['--args', '3', ...args.command], {
    env: {},
    argv0: 'bwrap',
    detached: true,
    stdio: [stdio.stdin, stdio.stdout, 'pipe', 'pipe', 'pipe', 'pipe'],
  });
  const argsPipe = child.stdio[3] as NodeJS.WritableStream | null;
  argsPipe?.on('error', () => undefined);
  argsPipe?.end(encodeArgs(args.options));
  let initPid: number | undefined;
  let namespace: number | undefined;
  void collectText(child.stdio[4] as NodeJS.ReadableStream).then((text) => {
    try {
      const info = JSON.parse(text) as { 'child-pid'?: number; 'pid-namespace'?: number };
      initPid = info['child-pid'];
      namespace = info['pid-namespace'];
    } catch {
      // bwrap failed before it could say; the outer process group is still killable
    }
  });
  const report = collectText((child.stdio as unknown as (NodeJS.ReadableStream | null)[])[5]);
  const pid = child.pid ?? -1;
  const handle: ChildHandle = {
    pid,
    command: req.command,
    sandboxed: true,
    terminate: () => {
      if (namespace !== undefined && initPid !== undefined) terminateNamespace(namespace, initPid);
      else signal(-pid, 'SIGTERM');
    },
    kill: () => {
      if (initPid !== undefined) signal(initPid, 'SIGKILL');
      signal(-pid, 'SIGKILL');
    },
    signalCommand: (sig) => {
      const targets = initPid === undefined ? [] : commandPids(initPid, BRIDGE_SCRIPT);
      for (const target of targets) signal(target, sig);
      return targets.length > 0;
    },
  };
  return { child, handle, ...(proxy ? { proxy } : {}), report, record: { mode: 'bubblewrap', bwrap: bwrap.version, view: plan.view, leftover: null, ...(proxy ? { net: proxy.record } : {}) } };
}

async function launchSandboxed(req: LaunchTarget, executable: string, sandbox: OsSandboxRequest, stdio: LaunchStdio): Promise<Launch> {
  // The grant first: one the sandbox cannot express is refused whether or not bwrap is here.
  const plan = planFor(req, executable, sandbox);
  const bwrap = await locateBwrap(sandbox.hostEnv ?? process.env);
  const proxy = sandbox.grant.netAny ? await NetProxy.start(sandbox.net) : undefined;
  try {
    return startSandboxed(req, executable, sandbox, plan, bwrap, proxy, stdio);
  } catch (error) {
    await proxy?.close();
    throw error;
  }
}

/** The same launch, answered at once (for spawn()): see locateBwrapSync and NetProxy.startNow. */
function launchSandboxedNow(req: LaunchTarget, executable: string, sandbox: OsSandboxRequest, stdio: LaunchStdio): Launch {
  const plan = planFor(req, executable, sandbox);
  const bwrap = locateBwrapSync(sandbox.hostEnv ?? process.env);
  const proxy = sandbox.grant.netAny ? NetProxy.startNow(sandbox.net) : undefined;
  try {
    return startSandboxed(req, executable, sandbox, plan, bwrap, proxy, stdio);
  } catch (error) {
    void proxy?.close();
    throw error;
  }
}

/** setpriv ties an unsandboxed child to the kernel's life (PR_SET_PDEATHSIG) where util-linux has it. */
export const SETPRIV = '/usr/bin/setpriv';
export function hasSetpriv(): boolean {
  try {
    accessSync(SETPRIV, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function launchPlain(req: LaunchTarget & { sandbox?: OsSandboxRequest }, executable: string, diesWithKernel: boolean, stdio: LaunchStdio): Launch {
  const viaSetpriv = diesWithKernel && hasSetpriv();
  const streams = [stdio.stdin, stdio.stdout, stdio.stderr];
  const child = viaSetpriv
    ? spawn(SETPRIV, ['--pdeathsig', 'KILL', '--', executable, ...req.args], { cwd: req.cwd, env: req.env, detached: true, stdio: streams })
    : spawn(executable, [...req.args], { cwd: req.cwd, env: req.env, argv0: req.command, detached: true, stdio: streams });
  const pid = child.pid ?? -1;
  const handle: ChildHandle = {
    pid,
    command: req.command,
    sandboxed: false,
    terminate: () => void signal(-pid, 'SIGTERM'),
    kill: () => void signal(-pid, 'SIGKILL'),
    signalCommand: (sig) => signal(pid, sig),
  };
  return { child, handle, ...(req.sandbox ? { record: { mode: 'off' as const, leftover: null } } : {}) };
}

/**
 * After the child has closed: reads the sandbox's report into its record (how many
 * processes it left), and returns the error to answer with when bwrap itself failed (a
 * mount it could not make) rather than the command: a refusal, not the command's exit.
 */
export async function settleLaunch(launch: Launch, stderr: string, killedByKernel: boolean): Promise<Error | undefined> {
  const report = launch.report ? await launch.report : '';
  const record = launch.record;
  const m = /exit (\d+) left (\d+)/.exec(report);
  if (record && m) record.leftover = Number(m[2]);
  if (record?.mode !== 'bubblewrap' || m || killedByKernel) return undefined;
  const line = stderr.trim().split('\n').reverse().find((l) => l.startsWith('bwrap: '));
  return line ? Object.assign(new Error(`RTC_ERR_OSBOX_UNAVAILABLE: the OS sandbox could not start: ${line}`), { code: 'EOSBOX' }) : undefined;
}

/**
 * Starts a long-lived child at once (for `Deno.Command(...).spawn()`): the same checks,
 * OS sandbox and tracker as runCommand, the streams as asked; the caller owns the rest.
 */
export function launchChild(req: LaunchTarget & { sandbox?: OsSandboxRequest; tracker?: ChildTracker }, stdio: LaunchStdio): Launch {
  const executable = resolveExecutable(req.command, req.searchPath, req.cwd);
  if (!executable) throw enoent(`Failed to spawn '${req.command}': No such file or directory (os error 2)`);
  if (statSync(req.cwd, { throwIfNoEntry: false })?.isDirectory() !== true) throw enoent(`Failed to spawn '${req.command}': the cwd ${req.cwd} is not a folder`);
  req.tracker?.admit(req.command);
  return req.sandbox?.mode === 'bubblewrap' ? launchSandboxedNow(req, executable, req.sandbox, stdio) : launchPlain(req, executable, req.sandbox?.mode === 'off', stdio);
}

export async function runCommand(req: CommandRequest): Promise<CommandResult> {
  const executable = resolveExecutable(req.command, req.searchPath, req.cwd);
  if (!executable) throw enoent(`Failed to spawn '${req.command}': No such file or directory (os error 2)`);
  if (statSync(req.cwd, { throwIfNoEntry: false })?.isDirectory() !== true) throw enoent(`Failed to spawn '${req.command}': the cwd ${req.cwd} is not a folder`);
  req.tracker?.admit(req.command);
  const stdio: LaunchStdio = { stdin: req.input ? 'pipe' : 'ignore', stdout: 'pipe', stderr: 'pipe' };
  const launch = req.sandbox?.mode === 'bubblewrap' ? await launchSandboxed(req, executable, req.sandbox, stdio) : launchPlain(req, executable, req.sandbox?.mode === 'off', stdio);
  const { child, handle } = launch;
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let total = 0;
    let killed: CommandResult['killed'] = null;
    let stopSignal: string | null = null;
    const end = (why: 'timeout' | 'output' | 'aborted'): void => {
      killed ??= why;
      handle.kill();
    };
    const tracked: ChildHandle = {
      ...handle,
      terminate: () => {
        killed ??= 'stop';
        stopSignal ??= 'SIGTERM';
        handle.terminate();
      },
      kill: () => {
        killed ??= 'stop';
        stopSignal = 'SIGKILL';
        handle.kill();
      },
    };
    req.tracker?.started(tracked);
    const timer = setTimeout(() => end('timeout'), req.wallMs);
    const onAbort = () => end('aborted');
    if (req.signal?.aborted) onAbort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    const collect = (sink: Buffer[]) => (chunk: Buffer) => {
      total += chunk.length;
      if (total > req.outputBytes) {
        end('output');
        return;
      }
      sink.push(chunk);
    };
    child.stdout?.on('data', collect(out));
    child.stderr?.on('data', collect(err));
    const finish = async (): Promise<void> => {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      req.tracker?.ended(tracked, launch.record);
      await launch.proxy?.close();
    };
    child.on('error', (error) => {
      void finish().then(() => reject(error));
    });
    child.on('close', (code, sig) => {
      // Children that outlived the leader are still in its process group: end them too. (A
      // sandbox needs nothing: its pid namespace ended with its init, before bwrap exited.)
      if (!handle.sandboxed) handle.kill();
      void (async () => {
        const stderr = Buffer.concat(err);
        const failure = await settleLaunch(launch, stderr.toString('utf8'), killed !== null);
        const record = launch.record;
        await finish();
        if (failure) {
          reject(failure);
          return;
        }
        const exit = code ?? 128 + signalNumber(sig ?? 'SIGTERM');
        const shownSignal = sig ?? (killed === 'stop' && exit > 128 ? stopSignal : null);
        resolve({ code: exit, signal: shownSignal, stdout: Buffer.concat(out), stderr, killed, ...(record ? { sandbox: record } : {}) });
      })();
    });
    if (req.input && child.stdin) {
      child.stdin.on('error', () => undefined);
      child.stdin.end(req.input);
    }
  });
}
