/**
 * `node:process` (and the global `process`, as Deno has it): an EventEmitter over the Deno
 * namespace, so every effect is the Deno API's broker op with its permission check:
 * `process.env` reads and writes through `Deno.env` (an env grant per variable, the whole
 * environment for a listing), `cwd()` is `Deno.cwd()`, `exit()` is `Deno.exit()`; the `sys`
 * facts (`getuid`, `umask`) throw Deno's NotCapable. `beforeExit` and `exit` fire when the run
 * ends (lifecycle.ts), with `process.exitCode`.
 */
import { denoNamespace } from '../../deno/namespace-ref.ts';
import { monotonicNow } from '../../web/clock.ts';
import { getExitCode, onLifecycle, setExitCode } from '../../lifecycle.ts';
import { unsupportedError } from '../../unsupported.ts';
import { errors } from '../../deno/errors.ts';
import { callSync } from '../../host.ts';
import { EventEmitter, setWarningSink } from '../node-events/index.ts';
import { invalidArgType, validateFunction } from '../node-errors/index.ts';
import { NODE_VERSION, nodeVersions } from './versions.ts';
import { makeStdio } from './stdio.ts';

interface DenoLike {
  env: { get(k: string): string | undefined; set(k: string, v: string): void; delete(k: string): void; has(k: string): boolean; toObject(): Record<string, string> };
  args: readonly string[];
  pid: number;
  ppid: number;
  cwd(): string;
  chdir(dir: string): void;
  exit(code?: number): never;
  execPath(): string;
  mainModule: string;
  memoryUsage(): Record<string, number>;
  uid(): number;
  gid(): number;
  build: { arch: string; os: string };
}

const deno = denoNamespace() as unknown as DenoLike;

/** `process.env`: each read, write and listing goes through Deno.env, with its permission check. */
function makeEnv(): Record<string, string | undefined> {
  return new Proxy(Object.create(null) as Record<string, string | undefined>, {
    get(_target, key) {
      if (typeof key === 'symbol') return undefined;
      return deno.env.get(key);
    },
    set(_target, key, value) {
      if (typeof key === 'symbol') return false;
      deno.env.set(key, String(value));
      return true;
    },
    deleteProperty(_target, key) {
      if (typeof key === 'symbol') return false;
      deno.env.delete(key);
      return true;
    },
    has(_target, key) {
      if (typeof key === 'symbol') return false;
      return deno.env.get(key) !== undefined;
    },
    ownKeys() {
      return Object.keys(deno.env.toObject());
    },
    getOwnPropertyDescriptor(_target, key) {
      if (typeof key === 'symbol') return undefined;
      const value = deno.env.get(key);
      return value === undefined ? undefined : { value, writable: true, enumerable: true, configurable: true };
    },
    defineProperty(_target, key, desc) {
      if (typeof key === 'symbol' || !('value' in desc)) return false;
      deno.env.set(key, String(desc.value));
      return true;
    },
  });
}

function arch(): string {
  const a = deno.build.arch;
  return a === 'x86_64' ? 'x64' : a === 'aarch64' ? 'arm64' : a;
}

/** A file: URL's path (the main module's), without loading the URL class for it. */
function fileUrlToPath(url: string): string {
  if (!url.startsWith('file://')) return url;
  const rest = url.slice('file://'.length);
  const path = rest.slice(rest.indexOf('/')).replace(/[?#].*$/, '');
  return decodeURIComponent(path);
}

/** [exec path, main module path, ...args], as Deno builds process.argv. */
function makeArgv(): string[] {
  let exec = 'deno';
  try {
    exec = deno.execPath();
  } catch {
    // a kernel without a deno-compatible program: the name stands in for it
  }
  let main = '';
  try {
    main = fileUrlToPath(deno.mainModule);
  } catch {
    // a plugin called by the kernel has no main module
  }
  return [exec, ...(main ? [main] : []), ...deno.args];
}

// nextTick: Node runs the tick queue before promise jobs; a microtask per tick is close enough
// for scripts, and keeps the order of ticks among themselves.
function nextTick(callback: (...args: unknown[]) => void, ...args: unknown[]): void {
  validateFunction(callback, 'callback');
  queueMicrotask(() => callback(...args));
}

function hrtime(previous?: [number, number]): [number, number] {
  const now = monotonicNow();
  let sec = Math.floor(now / 1000);
  let nsec = Math.round((now - sec * 1000) * 1e6);
  if (previous !== undefined) {
    if (!Array.isArray(previous) || previous.length !== 2) throw invalidArgType('time', 'an instance of Array', previous);
    sec -= previous[0];
    nsec -= previous[1];
    if (nsec < 0) {
      sec -= 1;
      nsec += 1e9;
    }
  }
  return [sec, nsec];
}
hrtime.bigint = (): bigint => BigInt(Math.round(monotonicNow() * 1e6));

function memoryUsage(): Record<string, number> {
  const m = deno.memoryUsage();
  return { rss: m.rss ?? 0, heapTotal: m.heapTotal ?? 0, heapUsed: m.heapUsed ?? 0, external: m.external ?? 0, arrayBuffers: 0 };
}
memoryUsage.rss = (): number => deno.memoryUsage().rss ?? 0;

interface WarningOptions {
  type?: string;
  code?: string;
  detail?: string;
}

function emitWarning(warning: string | Error, typeOrOptions?: string | WarningOptions, code?: string): void {
  let type = 'Warning';
  let detail: string | undefined;
  if (typeof typeOrOptions === 'object' && typeOrOptions !== null) {
    type = typeOrOptions.type ?? type;
    code = typeOrOptions.code;
    detail = typeOrOptions.detail;
  } else if (typeof typeOrOptions === 'string') type = typeOrOptions;
  let error: Error & { code?: string; detail?: string };
  if (typeof warning === 'string') {
    error = new Error(warning);
    error.name = type;
    if (code !== undefined) error.code = code;
    if (detail !== undefined) error.detail = detail;
  } else if (warning instanceof Error) error = warning;
  else throw invalidArgType('warning', 'of type string or an instance of Error', warning);
  if (error.name === 'DeprecationWarning' && process.noDeprecation) return;
  queueMicrotask(() => {
    if (process.listenerCount('warning') > 0) process.emit('warning', error);
    else {
      const shown = `(node:${process.pid}) ${error.code ? `[${error.code}] ` : ''}${error.name}: ${error.message}${error.detail ? `\n${error.detail}` : ''}\n`;
      process.stderr.write(shown);
    }
  });
}

function exit(code?: number | string | null): never {
  if (code !== undefined) setExitCode(code);
  if (!exiting) {
    exiting = true;
    process.emit('exit', getExitCode() ?? 0);
  }
  return deno.exit(getExitCode() ?? 0);
}

let exiting = false;

function kill(pid: number, signal: string | number = 'SIGTERM'): true {
  // Signal 0 to the run itself asks only whether it exists.
  if ((signal === 0 || signal === '0') && pid === deno.pid) return true;
  throw unsupportedError('process.kill', 'a sandboxed script sends no signals');
}

function dlopen(_module: unknown, filename: string): never {
  // Deno checks --allow-ffi, which the sandbox never grants.
  throw new errors.NotCapable!(`Requires ffi access to "${String(filename)}", run again with the --allow-ffi flag`);
}

const EMPTY_BINDING = Object.freeze(Object.create(null) as object);

const process = Object.create(EventEmitter.prototype) as EventEmitter & Record<string, unknown> & { pid: number; noDeprecation: boolean; stderr: { write(s: string): boolean } };
EventEmitter.call(process);

const stdio = makeStdio();

Object.defineProperties(process, {
  [Symbol.toStringTag]: { value: 'process', enumerable: false, configurable: true },
  version: { value: `v${NODE_VERSION}`, enumerable: true },
  versions: { value: nodeVersions(), enumerable: true },
  release: { value: Object.freeze({ name: 'node', sourceUrl: '', headersUrl: '' }), enumerable: true },
  platform: { value: 'linux', enumerable: true },
  arch: { get: arch, enumerable: true },
  env: { value: makeEnv(), enumerable: true, writable: true, configurable: true },
  argv: { value: makeArgv(), enumerable: true, writable: true, configurable: true },
  argv0: { get: () => (process.argv as string[])[0], enumerable: true, configurable: true },
  execArgv: { value: [], enumerable: true, writable: true },
  execPath: { get: () => (process.argv as string[])[0], enumerable: true, configurable: true },
  title: { value: 'deno', enumerable: true, writable: true },
  pid: { get: () => deno.pid, enumerable: true },
  ppid: { get: () => deno.ppid, enumerable: true },
  exitCode: { get: getExitCode, set: setExitCode, enumerable: true, configurable: true },
  config: { value: Object.freeze({ target_defaults: {}, variables: {} }), enumerable: true },
  features: { value: Object.freeze({ inspector: false, debug: false, uv: true, ipv6: true, tls_alpn: true, tls_sni: true, tls_ocsp: true, tls: true, cached_builtins: true, typescript: 'transform' }), enumerable: true },
  noDeprecation: { value: false, enumerable: true, writable: true },
  throwDeprecation: { value: false, enumerable: true, writable: true },
  traceDeprecation: { value: false, enumerable: true, writable: true },
  stdout: { get: () => stdio.stdout(), enumerable: true, configurable: true },
  stderr: { get: () => stdio.stderr(), enumerable: true, configurable: true },
  stdin: { get: () => stdio.stdin(), enumerable: true, configurable: true },
});

Object.assign(process, {
  cwd: () => deno.cwd(),
  chdir: (dir: string) => deno.chdir(dir),
  exit,
  abort: () => exit(134),
  reallyExit: (code: number) => deno.exit(code),
  kill,
  nextTick,
  hrtime,
  uptime: () => monotonicNow() / 1000,
  memoryUsage,
  cpuUsage: (previous?: { user: number; system: number }) => {
    // the isolate's CPU time is the kernel's to meter; its wall time stands in for user time
    const user = Math.round(monotonicNow() * 1000);
    return previous ? { user: user - previous.user, system: 0 } : { user, system: 0 };
  },
  resourceUsage: () => ({ userCPUTime: Math.round(monotonicNow() * 1000), systemCPUTime: 0, maxRSS: Math.round((memoryUsage().rss ?? 0) / 1024) }),
  emitWarning,
  umask: () => callSync<never>('sys.info', { kind: 'umask' }),
  getuid: () => deno.uid(),
  geteuid: () => deno.uid(),
  getgid: () => deno.gid(),
  getegid: () => deno.gid(),
  getgroups: () => [deno.gid()],
  binding: (_name: string) => EMPTY_BINDING,
  _linkedBinding: (_name: string) => EMPTY_BINDING,
  dlopen,
  setUncaughtExceptionCaptureCallback: (fn: unknown) => {
    if (fn !== null && typeof fn !== 'function') throw invalidArgType('fn', 'of type function or null', fn);
  },
  hasUncaughtExceptionCaptureCallback: () => false,
  setSourceMapsEnabled: () => undefined,
  getActiveResourcesInfo: () => [],
  // the sandbox has no IPC channel, no report writer, no permission model of Node's
  send: undefined,
  connected: false,
  report: Object.freeze({ writeReport: () => '', getReport: () => ({}) }),
});

setWarningSink((warning) => emitWarning(warning));

// The run ends: `beforeExit` may start more work; `exit` is the last word (lifecycle.ts).
onLifecycle('beforeExit', (code) => {
  if (!exiting) process.emit('beforeExit', code);
});
onLifecycle('exit', (code) => {
  if (!exiting) {
    exiting = true;
    process.emit('exit', code);
  }
});


export { process };
export const modules = { process };
