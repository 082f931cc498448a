/**
 * The `Deno` global: the documented subset, each member a broker op or pure code. Members
 * that need a larger implementation (`Deno.open`/`FsFile`, `Deno.test`, `Deno.Command`'s
 * `spawn()`) load their shim part on first use. Every other member real Deno has is present
 * and throws: Deno's own error where Deno has one (a missing `--allow-sys`), else
 * RTC_ERR_UNSUPPORTED naming it (unsupported.ts).
 */
import { callSync } from '../host.ts';
import { defineLazy, requirePart } from '../parts-loader.ts';
import { formatArgs, inspect, type InspectOptions } from '../web/inspect.ts';
import { refTimer, unrefTimer } from '../web/timers.ts';
import { defineUnsupported } from '../unsupported.ts';
import { Command } from './command.ts';
import { errors } from './errors.ts';
import { fs } from './fs.ts';
import { setDenoNamespace } from './namespace-ref.ts';
import { getExitCode, setExitCode } from '../lifecycle.ts';

/** Thrown by `Deno.exit` to unwind the script; the host has already recorded the exit. */
export class ExitSignal {
  readonly code: number;
  constructor(code: number) {
    this.code = code;
  }
}

/** The Deno version whose behaviour the shim follows (the conformance suite's oracle). */
export const DENO_VERSION = { deno: '2.9.6', v8: '15.0.245.2-rusty', typescript: '6.0.3' };

/** Deno's `sys` kinds: a call needs `--allow-sys=<kind>`, which the sandbox never grants. */
const SYS_CALLS: Record<string, string> = {
  hostname: 'hostname', loadavg: 'loadavg', osRelease: 'osRelease', osUptime: 'osUptime',
  networkInterfaces: 'networkInterfaces', systemMemoryInfo: 'systemMemoryInfo', uid: 'uid', gid: 'gid',
};

/** Members of real Deno the sandbox does not provide (throw RTC_ERR_UNSUPPORTED when called). */
const UNSUPPORTED = [
  'connect', 'connectTls', 'listen', 'listenTls', 'startTls', 'serve', 'serveHttp', 'upgradeWebSocket',
  'resolveDns', 'createHttpClient', 'dlopen', 'kill', 'addSignalListener', 'removeSignalListener', 'consoleSize',
  'cpuUsage', 'bench', 'lint', 'run', 'spawn', 'spawnAndWait', 'spawnAndWaitSync', 'chdir', 'isatty', 'HttpClient', 'Process',
  'UnsafeCallback', 'UnsafeFnPointer', 'UnsafePointer', 'UnsafePointerView', 'telemetry',
];

export function makeDeno(args: readonly string[], build: { os: string; arch: string }): Record<string, unknown> {
  const env = {
    get: (name: string) => callSync<string | null>('env.get', { name: String(name) }) ?? undefined,
    has: (name: string) => callSync<string | null>('env.get', { name: String(name) }) !== null,
    set: (name: string, value: string) => void callSync('env.set', { name: String(name), value: String(value) }),
    delete: (name: string) => void callSync('env.delete', { name: String(name) }),
    toObject: () => callSync<Record<string, string>>('env.toObject', {}),
  };
  const target = build.arch === 'aarch64' ? 'aarch64-unknown-linux-gnu' : `${build.arch}-unknown-linux-gnu`;
  const deno: Record<string, unknown> = {
    ...fs,
    env,
    Command,
    errors,
    args: Object.freeze([...args]),
    build: Object.freeze({ target, arch: build.arch, os: build.os, vendor: 'unknown', env: 'gnu', standalone: false }),
    version: Object.freeze({ ...DENO_VERSION }),
    inspect: (value: unknown, options?: InspectOptions) => inspect(value, false, options ?? {}),
    cwd: () => callSync<string>('fs.cwd', {}),
    execPath: () => callSync<string>('process.execPath', {}),
    memoryUsage: () => callSync<Record<string, number>>('process.memoryUsage', {}),
    watchFs: (paths: string | string[]) => callSync('fs.watch', { paths: (Array.isArray(paths) ? paths : [paths]).map(String) }),
    refTimer,
    unrefTimer,
    // without a code, the run's exit code (Deno.exitCode, process.exitCode), as Deno 2 does
    exit: (code?: number): never => {
      const status = Number.isInteger(code) ? (code as number) : (getExitCode() ?? 0);
      callSync('process.exit', { code: status });
      throw new ExitSignal(status);
    },
  };
  for (const [name, kind] of Object.entries(SYS_CALLS)) {
    deno[name] = { [name]: () => callSync('sys.info', { kind }) }[name];
  }
  const getter = (name: string, get: () => unknown): void => {
    Object.defineProperty(deno, name, { get, configurable: true, enumerable: true });
  };
  // not enumerable, as in Deno
  Object.defineProperty(deno, 'exitCode', { get: () => getExitCode() ?? 0, set: (value: unknown) => setExitCode(value), configurable: true, enumerable: false });
  getter('pid', () => callSync<number>('process.pid', {}));
  getter('ppid', () => callSync<number>('process.ppid', {}));
  getter('noColor', () => callSync<boolean>('process.noColor', {}));
  getter('mainModule', () => callSync<string>('process.mainModule', {}));
  // enumerable like every member of Deno's namespace (Object.keys(Deno) lists them)
  defineLazy(deno, ['open', 'openSync', 'create', 'createSync', 'FsFile', 'SeekMode', 'stdin', 'stdout', 'stderr'], () => void requirePart('fs-file'), true);
  defineLazy(deno, ['test'], () => void requirePart('testing'), true);
  defineLazy(deno, ['ChildProcess'], () => void requirePart('child-process'), true);
  defineLazy(deno, ['permissions', 'Permissions', 'PermissionStatus'], () => void requirePart('permissions'), true);
  // Deno[Deno.internal]: what scripts (and Deno's own tests) reach for there: inspectArgs.
  const internal = Symbol('Deno.internal');
  Object.defineProperty(deno, 'internal', { value: internal, enumerable: true, configurable: true });
  // core.encodeBinaryString: bytes as a "binary string" (one char per byte), which Deno's own tests use.
  const core = Object.freeze({
    encodeBinaryString: (bytes: Uint8Array) => {
      let out = '';
      for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return out;
    },
  });
  Object.defineProperty(deno, internal, { value: Object.freeze({ inspectArgs: (args: unknown[]) => `${formatArgs(args)}\n`, core }), configurable: true });
  defineUnsupported(deno, 'Deno', UNSUPPORTED);
  setDenoNamespace(deno);
  return deno;
}
