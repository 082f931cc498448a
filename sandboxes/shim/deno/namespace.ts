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
import { defineUnsupported, gatedFunction, type ShimAttempt } from '../unsupported.ts';
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

/**
 * Members of real Deno the sandbox does not provide and Deno gates behind no permission
 * (throw RTC_ERR_UNSUPPORTED when called).
 */
const UNSUPPORTED = [
  'serveHttp', 'upgradeWebSocket', 'createHttpClient', 'addSignalListener', 'removeSignalListener', 'consoleSize',
  'cpuUsage', 'bench', 'lint', 'isatty', 'HttpClient', 'telemetry',
];

type Options = Record<string, unknown> | undefined;
const opts = (value: unknown): Options => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined);
const str = (value: unknown, fallback: string): string => (value === undefined || value === null ? fallback : String(value));
/** A path argument as Deno takes it (a string, or a file: URL's path). */
const pathOf = (value: unknown): string | undefined => {
  if (value === undefined || value === null) return undefined;
  const url = opts(value) as { protocol?: unknown; pathname?: unknown } | undefined;
  if (url && url.protocol === 'file:' && typeof url.pathname === 'string') return decodeURIComponent(url.pathname);
  return String(value);
};
/** A socket: `net` host:port, or `read` and `write` of a unix socket's path. */
const socket = (o: Options, host: string): ShimAttempt[] => {
  if (o?.transport === 'unix' || o?.transport === 'unixpacket' || (o?.path !== undefined && o?.port === undefined)) {
    const p = pathOf(o?.path);
    return [{ kind: 'read', value: p }, { kind: 'write', value: p }];
  }
  return [{ kind: 'net', value: `${str(o?.hostname, host)}:${str(o?.port, '0')}` }];
};
/** `Deno.serve(handler)`, `(options, handler)`, `({ handler, ...options })`: 0.0.0.0:8000 unless the options say. */
const serveOptions = (a: unknown): Options => (typeof a === 'function' ? undefined : opts(a));
const program = (value: unknown): ShimAttempt[] => [{ kind: 'run', value: pathOf(value) }];

/**
 * Members Deno gates behind a permission that the sandbox does not implement: each call is
 * the attempt of that permission (unsupported.ts, gatedFunction), measured against Deno
 * 2.9.6's own refusals (`Requires net access to "0.0.0.0:8000"` for a bare `Deno.serve`).
 */
const GATED: Record<string, (...args: unknown[]) => never> = {
  connect: gatedFunction('Deno.connect', 'net', (o) => socket(opts(o), '127.0.0.1'), { async: true }),
  connectTls: gatedFunction('Deno.connectTls', 'net', (o) => socket(opts(o), '127.0.0.1'), { async: true }),
  startTls: gatedFunction('Deno.startTls', 'net', (_conn, o) => [{ kind: 'net', value: str(opts(o)?.hostname, '127.0.0.1') }], { async: true }),
  listen: gatedFunction('Deno.listen', 'net', (o) => socket(opts(o), '0.0.0.0')),
  listenTls: gatedFunction('Deno.listenTls', 'net', (o) => socket(opts(o), '0.0.0.0')),
  serve: gatedFunction('Deno.serve', 'net', (a) => {
    const o = serveOptions(a);
    return o?.path !== undefined ? socket(o, '0.0.0.0') : [{ kind: 'net', value: `${str(o?.hostname, '0.0.0.0')}:${str(o?.port, '8000')}` }];
  }),
  // Deno checks the resolver it would ask: the name server given, else the system's.
  resolveDns: gatedFunction('Deno.resolveDns', 'net', (_q, _t, o) => {
    const ns = opts(opts(o)?.nameServer);
    return [ns ? { kind: 'net', value: `${str(ns.ipAddr, '')}:${str(ns.port, '53')}` } : { kind: 'net' }];
  }, { async: true }),
  dlopen: gatedFunction('Deno.dlopen', 'ffi', (p) => [{ kind: 'ffi', value: pathOf(p) }]),
  UnsafeCallback: gatedFunction('Deno.UnsafeCallback', 'ffi', () => [{ kind: 'ffi' }]),
  UnsafeFnPointer: gatedFunction('Deno.UnsafeFnPointer', 'ffi', () => [{ kind: 'ffi' }]),
  UnsafePointerView: gatedFunction('Deno.UnsafePointerView', 'ffi', () => [{ kind: 'ffi' }]),
  kill: gatedFunction('Deno.kill', 'run', () => [{ kind: 'run' }]),
  run: gatedFunction('Deno.run', 'run', (o) => {
    const cmd = opts(o)?.cmd;
    return program(Array.isArray(cmd) ? cmd[0] : undefined);
  }),
  spawn: gatedFunction('Deno.spawn', 'run', program, { async: true }),
  spawnAndWait: gatedFunction('Deno.spawnAndWait', 'run', program, { async: true }),
  spawnAndWaitSync: gatedFunction('Deno.spawnAndWaitSync', 'run', program),
  Process: gatedFunction('Deno.Process', 'run', () => [{ kind: 'run' }]),
  chdir: gatedFunction('Deno.chdir', 'read', (p) => [{ kind: 'read', value: pathOf(p) }]),
};

/** `Deno.UnsafePointer`: its static methods reach raw memory (`ffi`). */
function unsafePointer(): unknown {
  const pointer = gatedFunction('Deno.UnsafePointer', 'ffi', () => [{ kind: 'ffi' }]);
  for (const name of ['create', 'equals', 'of', 'offset', 'value']) {
    Object.defineProperty(pointer, name, { value: gatedFunction(`Deno.UnsafePointer.${name}`, 'ffi', () => [{ kind: 'ffi' }]), writable: true, configurable: true });
  }
  return pointer;
}

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
  for (const [name, stub] of Object.entries(GATED)) Object.defineProperty(deno, name, { value: stub, writable: true, configurable: true, enumerable: true });
  Object.defineProperty(deno, 'UnsafePointer', { value: unsafePointer(), writable: true, configurable: true, enumerable: true });
  defineUnsupported(deno, 'Deno', UNSUPPORTED);
  setDenoNamespace(deno);
  return deno;
}
