/**
 * The helpers Deno's own unit tests import from their `test_util.ts` (assertions in the
 * shape of @std/assert, delay, path helpers, execCode), written here from their documented
 * behaviour so the upstream tests can run in the sandbox without their code being part of
 * this repository. run-upstream.ts places this file beside each fetched test.
 */

export class AssertionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AssertionError';
  }
}

function show(value: unknown): string {
  try {
    return Deno.inspect(value, { depth: 6, iterableLimit: 50 });
  } catch {
    return String(value);
  }
}

function sameConstructor(a: object, b: object): boolean {
  const pa = Object.getPrototypeOf(a);
  const pb = Object.getPrototypeOf(b);
  if (pa === pb) return true;
  // Plain objects and null-prototype objects compare by content, as @std/assert does.
  const plain = (p: unknown) => p === null || p === Object.prototype;
  return plain(pa) && plain(pb);
}

/** Deep equality with @std/assert's rules (value types by value, objects by own keys). */
export function equal(a: unknown, b: unknown, seen = new Map<unknown, unknown>()): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return typeof a === 'function' && typeof b === 'function' ? false : Object.is(a, b);
  }
  if (seen.get(a) === b) return true;
  seen.set(a, b);
  if (a instanceof Date && b instanceof Date) return Object.is(a.getTime(), b.getTime());
  if (a instanceof RegExp && b instanceof RegExp) return String(a) === String(b);
  if (a instanceof URL && b instanceof URL) return a.href === b.href;
  if (a instanceof WeakMap || a instanceof WeakSet || b instanceof WeakMap || b instanceof WeakSet) return false;
  if (!sameConstructor(a, b)) return false;
  if (a instanceof ArrayBuffer && b instanceof ArrayBuffer) return equal(new Uint8Array(a), new Uint8Array(b), seen);
  if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b)) {
    const x = a as unknown as ArrayLike<unknown>;
    const y = b as unknown as ArrayLike<unknown>;
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i]) && x[i] !== y[i]) return false;
    return true;
  }
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) {
      if (!b.has(k)) {
        const match = [...b.keys()].find((k2) => equal(k, k2, seen));
        if (match === undefined || !equal(v, b.get(match), seen)) return false;
      } else if (!equal(v, b.get(k), seen)) return false;
    }
    return true;
  }
  if (a instanceof Set && b instanceof Set) {
    if (a.size !== b.size) return false;
    for (const v of a) if (!b.has(v) && ![...b].some((w) => equal(v, w, seen))) return false;
    return true;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = [...Object.keys(a), ...Object.getOwnPropertySymbols(a).filter((s) => Object.prototype.propertyIsEnumerable.call(a, s))];
  const keysB = [...Object.keys(b), ...Object.getOwnPropertySymbols(b).filter((s) => Object.prototype.propertyIsEnumerable.call(b, s))];
  if (keysA.length !== keysB.length) return false;
  for (const key of keysA) {
    if (!Object.prototype.hasOwnProperty.call(b, key)) return false;
    if (!equal((a as Record<PropertyKey, unknown>)[key], (b as Record<PropertyKey, unknown>)[key], seen)) return false;
  }
  if (a instanceof Error && b instanceof Error) return a.message === b.message && a.name === b.name;
  return true;
}

export function assert(expr: unknown, msg = ''): asserts expr {
  if (!expr) throw new AssertionError(msg || 'Expected expression to be truthy');
}

export function assertFalse(expr: unknown, msg = ''): void {
  if (expr) throw new AssertionError(msg || 'Expected expression to be falsy');
}

export function assertEquals<T>(actual: T, expected: T, msg?: string): void {
  if (!equal(actual, expected)) throw new AssertionError(msg ?? `Values are not equal:\n  actual: ${show(actual)}\n  expected: ${show(expected)}`);
}

export function assertNotEquals<T>(actual: T, expected: T, msg?: string): void {
  if (equal(actual, expected)) throw new AssertionError(msg ?? `Expected actual: ${show(actual)} not to be: ${show(expected)}`);
}

export function assertStrictEquals<T>(actual: unknown, expected: T, msg?: string): asserts actual is T {
  if (!Object.is(actual, expected)) throw new AssertionError(msg ?? `Values are not strictly equal:\n  actual: ${show(actual)}\n  expected: ${show(expected)}`);
}

export function assertNotStrictEquals(actual: unknown, expected: unknown, msg?: string): void {
  if (Object.is(actual, expected)) throw new AssertionError(msg ?? `Expected "actual" to not be strictly equal to: ${show(expected)}`);
}

export function assertExists<T>(actual: T, msg?: string): asserts actual is NonNullable<T> {
  if (actual === undefined || actual === null) throw new AssertionError(msg ?? `Expected actual: "${actual}" to not be null or undefined.`);
}

export function assertInstanceOf<T extends abstract new (...args: any[]) => any>(actual: unknown, expectedType: T, msg = ''): asserts actual is InstanceType<T> {
  if (!(actual instanceof expectedType)) throw new AssertionError(msg || `Expected object to be an instance of "${expectedType.name}" but was "${show(actual)}".`);
}

export function assertStringIncludes(actual: string, expected: string, msg?: string): void {
  if (!String(actual).includes(expected)) throw new AssertionError(msg ?? `Expected actual: "${actual}" to contain: "${expected}".`);
}

export function assertMatch(actual: string, expected: RegExp, msg?: string): void {
  if (!expected.test(actual)) throw new AssertionError(msg ?? `Expected actual: "${actual}" to match: "${expected}".`);
}

export function assertNotMatch(actual: string, expected: RegExp, msg?: string): void {
  if (expected.test(actual)) throw new AssertionError(msg ?? `Expected actual: "${actual}" to not match: "${expected}".`);
}

export function assertGreaterOrEqual<T>(actual: T, expected: T, msg?: string): void {
  if (!(actual >= expected)) throw new AssertionError(msg ?? `Expect ${show(actual)} >= ${show(expected)}`);
}

export function assertGreater<T>(actual: T, expected: T, msg?: string): void {
  if (!(actual > expected)) throw new AssertionError(msg ?? `Expect ${show(actual)} > ${show(expected)}`);
}

export function assertLess<T>(actual: T, expected: T, msg?: string): void {
  if (!(actual < expected)) throw new AssertionError(msg ?? `Expect ${show(actual)} < ${show(expected)}`);
}

export function assertLessOrEqual<T>(actual: T, expected: T, msg?: string): void {
  if (!(actual <= expected)) throw new AssertionError(msg ?? `Expect ${show(actual)} <= ${show(expected)}`);
}

export function assertAlmostEquals(actual: number, expected: number, tolerance = 1e-7, msg?: string): void {
  if (Math.abs(actual - expected) > tolerance) throw new AssertionError(msg ?? `Expected actual: "${actual}" to be close to "${expected}"`);
}

export function assertArrayIncludes<T>(actual: ArrayLike<T>, expected: ArrayLike<T>, msg?: string): void {
  const missing = Array.from(expected).filter((e) => !Array.from(actual).some((a) => equal(a, e)));
  if (missing.length > 0) throw new AssertionError(msg ?? `Expected actual: "${show(actual)}" to include: "${show(expected)}".`);
}

export function assertObjectMatch(actual: Record<PropertyKey, unknown>, expected: Record<PropertyKey, unknown>, msg?: string): void {
  const subset = (a: unknown, e: unknown): boolean => {
    if (e !== null && typeof e === 'object' && !Array.isArray(e) && a !== null && typeof a === 'object') {
      return Object.keys(e).every((k) => subset((a as Record<string, unknown>)[k], (e as Record<string, unknown>)[k]));
    }
    return equal(a, e);
  };
  if (!subset(actual, expected)) throw new AssertionError(msg ?? `Values do not match:\n  actual: ${show(actual)}\n  expected: ${show(expected)}`);
}

export function fail(msg?: string): never {
  throw new AssertionError(`Failed assertion${msg ? `: ${msg}` : '.'}`);
}

export function unimplemented(msg?: string): never {
  throw new AssertionError(`Unimplemented${msg ? `: ${msg}` : '.'}`);
}

export function unreachable(msg?: string): never {
  throw new AssertionError(msg ?? 'unreachable');
}

type ErrorClass = abstract new (...args: any[]) => Error;

export function assertIsError(error: unknown, ErrorType?: ErrorClass, msgMatches?: string | RegExp, msg?: string): asserts error is Error {
  if (!(error instanceof Error) && !(typeof DOMException !== 'undefined' && error instanceof DOMException)) {
    throw new AssertionError(msg ?? `Expected "error" to be an Error object.`);
  }
  if (ErrorType && !(error instanceof ErrorType)) {
    throw new AssertionError(msg ?? `Expected error to be instance of "${ErrorType.name}", but was "${(error as Error)?.constructor?.name}".`);
  }
  const message = (error as Error).message;
  if (msgMatches !== undefined && !(typeof msgMatches === 'string' ? message.includes(msgMatches) : msgMatches.test(message))) {
    throw new AssertionError(msg ?? `Expected error message to include ${msgMatches instanceof RegExp ? msgMatches.toString() : JSON.stringify(msgMatches)}, but got ${JSON.stringify(message)}.`);
  }
}

export function assertThrows(fn: () => unknown, errorClassOrMsg?: ErrorClass | string, msgIncludesOrMsg?: string, msg?: string): unknown {
  let thrown = false;
  let error: unknown;
  try {
    fn();
  } catch (e) {
    thrown = true;
    error = e;
  }
  if (!thrown) throw new AssertionError(typeof errorClassOrMsg === 'string' ? errorClassOrMsg : (msg ?? 'Expected function to throw.'));
  if (typeof errorClassOrMsg === 'function') assertIsError(error, errorClassOrMsg, msgIncludesOrMsg, msg);
  return error;
}

export async function assertRejects(fn: () => PromiseLike<unknown>, errorClassOrMsg?: ErrorClass | string, msgIncludesOrMsg?: string, msg?: string): Promise<unknown> {
  let thrown = false;
  let error: unknown;
  try {
    await fn();
  } catch (e) {
    thrown = true;
    error = e;
  }
  if (!thrown) throw new AssertionError(typeof errorClassOrMsg === 'string' ? errorClassOrMsg : (msg ?? 'Expected function to reject.'));
  if (typeof errorClassOrMsg === 'function') assertIsError(error, errorClassOrMsg, msgIncludesOrMsg, msg);
  return error;
}

export function delay(ms: number, options: { signal?: AbortSignal } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(options.signal.reason);
    const id = setTimeout(resolve, ms);
    options.signal?.addEventListener('abort', () => {
      clearTimeout(id);
      reject(options.signal!.reason);
    }, { once: true });
  });
}

/** @std/io's copy: reads `src` to its end, writing each chunk whole to `dst`; the bytes copied. */
export async function copy(src: { read(p: Uint8Array): Promise<number | null> }, dst: { write(p: Uint8Array): Promise<number> }, options: { bufSize?: number } = {}): Promise<number> {
  let n = 0;
  const buf = new Uint8Array(options.bufSize ?? 32 * 1024);
  for (;;) {
    const result = await src.read(buf);
    if (result === null) return n;
    let written = 0;
    while (written < result) written += await dst.write(buf.subarray(written, result));
    n += written;
  }
}

export function pathToAbsoluteFileUrl(path: string): URL {
  const absolute = path.startsWith('/') ? path : `${Deno.cwd()}/${path}`;
  return new URL(`file://${absolute}`);
}

export function execCode3(cmd: string, args: string[]) {
  const child = new Deno.Command(cmd, { args, stdout: 'piped', stderr: 'inherit' }).spawn();
  const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = '';
  return {
    async waitStdoutText(text: string) {
      for (;;) {
        const { value, done } = await stdout.read();
        if (value) output += value;
        if (output.includes(text)) return;
        if (done) throw new Error(`Did not find text '${text}' in stdout.`);
      }
    },
    async finished() {
      for (;;) {
        const { value, done } = await stdout.read();
        if (value) output += value;
        if (done) break;
      }
      const status = await child.status;
      return [status.code, output] as const;
    },
  };
}

export function execCode2(code: string) {
  return execCode3(Deno.execPath(), ['eval', code]);
}

export function execCode(code: string): Promise<readonly [number, string]> {
  return execCode2(code).finished();
}

export function tmpUnixSocketPath(): string {
  return `${Deno.makeTempDirSync()}/socket`;
}

export const colors = {
  red: (s: string) => s,
  green: (s: string) => s,
  yellow: (s: string) => s,
  bold: (s: string) => s,
  stripAnsiCode: (s: string) => s.replace(/\x1b\[[0-9;]*m/g, ''),
};

// @std/path, the few functions the unit tests use (POSIX).
export function normalize(p: string): string {
  const absolute = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && out.length > 0 && out.at(-1) !== '..') out.pop();
    else if (part !== '..' || !absolute) out.push(part);
  }
  const joined = out.join('/');
  return absolute ? `/${joined}` : joined || '.';
}

export function join(...parts: string[]): string {
  return normalize(parts.filter((p) => p !== '').join('/'));
}

export function resolve(...parts: string[]): string {
  let at = Deno.cwd();
  for (const p of parts) at = p.startsWith('/') ? p : `${at}/${p}`;
  return normalize(at);
}

export function dirname(p: string): string {
  const n = normalize(p);
  const i = n.lastIndexOf('/');
  return i <= 0 ? (n.startsWith('/') ? '/' : '.') : n.slice(0, i);
}

export function basename(p: string): string {
  return normalize(p).split('/').at(-1) ?? '';
}

export function fromFileUrl(url: string | URL): string {
  return decodeURIComponent(new URL(url).pathname);
}

export function toFileUrl(p: string): URL {
  return new URL(`file://${p}`);
}

export const SEPARATOR = '/';
