/**
 * `node:util` and `node:util/types`: Node's `inspect` (the console's formatter with Node's
 * quoting and depth), `format`, `promisify`/`callbackify`, `inherits`, `deprecate`,
 * `isDeepStrictEqual`, `types.*`, `parseArgs`, `styleText`, `stripVTControlCharacters`,
 * `getSystemErrorName`. Pure code.
 */
import { inspect as baseInspect, NODE_CUSTOM_INSPECT, type InspectOptions } from '../../web/inspect.ts';
import { TextDecoder, TextEncoder } from '../../web/text-encoding.ts';
import { invalidArgType, nodeError, uvErrno, validateFunction } from '../node-errors/index.ts';
import { isDeepStrictEqual, isDeepEqual } from './deep-equal.ts';
import { types } from './types.ts';
import { parseArgs } from './parse-args.ts';

export { isDeepStrictEqual, isDeepEqual, types };

interface NodeInspectOptions extends InspectOptions {
  showHidden?: boolean;
  maxArrayLength?: number | null;
  maxStringLength?: number | null;
  customInspect?: boolean;
}

const defaultOptions: NodeInspectOptions = { depth: 2, breakLength: 128, compact: 3, sorted: false, getters: false };

function toBaseOptions(opts: NodeInspectOptions): InspectOptions {
  const o = { ...defaultOptions, ...opts };
  return {
    quotes: 'node',
    showHidden: Boolean(o.showHidden),
    depth: o.depth === null ? Infinity : o.depth,
    breakLength: o.breakLength,
    compact: o.compact,
    sorted: o.sorted,
    getters: o.getters,
    iterableLimit: o.maxArrayLength === null ? Infinity : o.maxArrayLength ?? 100,
    strAbbreviateSize: o.maxStringLength === null ? Infinity : o.maxStringLength ?? 10_000,
  };
}

/** `util.inspect(value, [showHidden, depth, colors] | options)`. */
export function inspect(value: unknown, opts?: NodeInspectOptions | boolean, depth?: number, _colors?: boolean): string {
  let options: NodeInspectOptions = {};
  if (typeof opts === 'boolean') options = { showHidden: opts, ...(depth === undefined ? {} : { depth }) };
  else if (opts !== null && typeof opts === 'object') options = opts;
  // Node's breakLength for inspect is 128 only by default through console; util.inspect uses 80
  return baseInspect(value, true, toBaseOptions({ breakLength: 80, ...options }));
}
inspect.custom = NODE_CUSTOM_INSPECT;
inspect.defaultOptions = defaultOptions;
inspect.colors = Object.create(null) as Record<string, [number, number]>;
inspect.styles = Object.create(null) as Record<string, string>;

function formatWithOptionsInternal(options: NodeInspectOptions, args: unknown[]): string {
  const first = args[0];
  let a = 0;
  let str = '';
  let join = '';
  if (typeof first === 'string') {
    if (args.length === 1) return first;
    let lastPos = 0;
    let tempStr = '';
    for (let i = 0; i < first.length - 1; i++) {
      if (first.charCodeAt(i) !== 37) continue; // '%'
      const next = first.charCodeAt(++i);
      if (a + 1 !== args.length) {
        switch (next) {
          case 115: { // 's'
            const arg = args[++a];
            if (typeof arg === 'number') tempStr = Object.is(arg, -0) ? '-0' : String(arg);
            else if (typeof arg === 'bigint') tempStr = `${arg}n`;
            else if (typeof arg !== 'object' || arg === null || hasOwnToString(arg)) tempStr = String(arg);
            else tempStr = inspect(arg, { ...options, depth: 0, compact: 3 });
            break;
          }
          case 106: // 'j'
            try {
              tempStr = JSON.stringify(args[++a]) ?? 'undefined';
            } catch (error) {
              if (error instanceof TypeError && /circular/i.test(error.message)) tempStr = '[Circular]';
              else throw error;
            }
            break;
          case 100: { // 'd'
            const n = args[++a];
            tempStr = typeof n === 'bigint' ? `${n}n` : typeof n === 'symbol' ? 'NaN' : formatNumber(Number(n));
            break;
          }
          case 79: // 'O'
            tempStr = inspect(args[++a], options);
            break;
          case 111: // 'o'
            tempStr = inspect(args[++a], { ...options, showHidden: true, depth: 4 });
            break;
          case 105: { // 'i'
            const n = args[++a];
            tempStr = typeof n === 'bigint' ? `${n}n` : typeof n === 'symbol' ? 'NaN' : formatNumber(Number.parseInt(String(n)));
            break;
          }
          case 102: { // 'f'
            const n = args[++a];
            tempStr = typeof n === 'symbol' ? 'NaN' : formatNumber(Number.parseFloat(String(n)));
            break;
          }
          case 99: // 'c'
            a += 1;
            tempStr = '';
            break;
          case 37: // '%'
            str += first.slice(lastPos, i);
            lastPos = i + 1;
            continue;
          default:
            continue;
        }
        if (lastPos !== i - 1) str += first.slice(lastPos, i - 1);
        str += tempStr;
        lastPos = i + 1;
      } else if (next === 37) {
        str += first.slice(lastPos, i);
        lastPos = i + 1;
      }
    }
    if (lastPos !== 0) {
      a++;
      join = ' ';
      if (lastPos < first.length) str += first.slice(lastPos);
    }
  }
  while (a < args.length) {
    const value = args[a];
    str += join;
    str += typeof value !== 'string' ? inspect(value, options) : value;
    join = ' ';
    a++;
  }
  return str;
}

function formatNumber(n: number): string {
  return Object.is(n, -0) ? '-0' : String(n);
}

const BUILTIN_PROTOTYPES = new Set<object>([Object.prototype, Array.prototype, Error.prototype, Date.prototype, RegExp.prototype, Function.prototype, Map.prototype, Set.prototype, Promise.prototype, Number.prototype, String.prototype, Boolean.prototype, Symbol.prototype]);

/** Node's `%s` prints a value with a toString of its own (a user class's) through it, and inspects the rest. */
function hasOwnToString(value: object): boolean {
  let proto: object | null = value;
  while (proto !== null && !BUILTIN_PROTOTYPES.has(proto)) {
    if (Object.prototype.hasOwnProperty.call(proto, 'toString')) return true;
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return false;
}

export function format(...args: unknown[]): string {
  return formatWithOptionsInternal({}, args);
}

export function formatWithOptions(options: NodeInspectOptions, ...args: unknown[]): string {
  if (options === null || typeof options !== 'object') throw invalidArgType('inspectOptions', 'of type object', options);
  return formatWithOptionsInternal(options, args);
}

const kCustomPromisify = Symbol.for('nodejs.util.promisify.custom');

export function promisify(original: (...args: unknown[]) => unknown): (...args: unknown[]) => Promise<unknown> {
  validateFunction(original, 'original');
  const custom = (original as unknown as Record<symbol, unknown>)[kCustomPromisify];
  if (custom !== undefined) {
    validateFunction(custom, 'util.promisify.custom');
    return Object.defineProperty(custom, kCustomPromisify, { value: custom, enumerable: false, writable: false, configurable: true }) as (...args: unknown[]) => Promise<unknown>;
  }
  const names = (original as unknown as Record<symbol, string[] | undefined>)[Symbol.for('nodejs.util.promisify.customArgs')];
  function fn(this: unknown, ...args: unknown[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      original.call(this, ...args, (err: unknown, ...values: unknown[]) => {
        if (err) return reject(err);
        if (names !== undefined && values.length > 1) {
          const obj: Record<string, unknown> = {};
          names.forEach((name, i) => (obj[name] = values[i]));
          resolve(obj);
        } else resolve(values[0]);
      });
    });
  }
  Object.setPrototypeOf(fn, Object.getPrototypeOf(original));
  Object.defineProperty(fn, kCustomPromisify, { value: fn, enumerable: false, writable: false, configurable: true });
  return Object.defineProperties(fn, Object.getOwnPropertyDescriptors(original)) as (...args: unknown[]) => Promise<unknown>;
}
promisify.custom = kCustomPromisify;

export function callbackify(original: (...args: unknown[]) => Promise<unknown>): (...args: unknown[]) => void {
  validateFunction(original, 'original');
  function callbackified(this: unknown, ...args: unknown[]): void {
    const cb = args.pop();
    validateFunction(cb, 'last argument');
    const callback = cb as (err: unknown, value?: unknown) => void;
    original.apply(this, args).then(
      (value) => queueMicrotask(() => callback(null, value)),
      (reason) => {
        let err = reason;
        if (!reason) {
          const wrapped = nodeError(Error, 'ERR_FALSY_VALUE_REJECTION', 'Promise was rejected with falsy value') as Error & { reason?: unknown };
          wrapped.reason = reason;
          err = wrapped;
        }
        queueMicrotask(() => callback(err));
      },
    );
  }
  Object.setPrototypeOf(callbackified, Object.getPrototypeOf(original));
  return callbackified;
}

export function inherits(ctor: Function, superCtor: Function): void {
  if (ctor === undefined || ctor === null) throw invalidArgType('ctor', 'of type function', ctor);
  if (superCtor === undefined || superCtor === null) throw invalidArgType('superCtor', 'of type function', superCtor);
  if (superCtor.prototype === undefined) throw invalidArgType('superCtor.prototype', 'of type object', superCtor.prototype);
  Object.defineProperty(ctor, 'super_', { value: superCtor, writable: true, configurable: true });
  Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
}

const warnedCodes = new Set<string>();

interface ProcessLike {
  emitWarning(warning: string | Error, type?: string, code?: string): void;
  noDeprecation?: boolean;
  throwDeprecation?: boolean;
}

function processModule(): ProcessLike {
  return (globalThis as unknown as { process: ProcessLike }).process;
}

export function deprecate<T extends (...args: unknown[]) => unknown>(fn: T, msg: string, code?: string): T {
  let warned = false;
  function deprecated(this: unknown, ...args: unknown[]): unknown {
    const process = processModule();
    if (!warned && !process.noDeprecation) {
      warned = true;
      if (code === undefined || !warnedCodes.has(code)) {
        if (code !== undefined) warnedCodes.add(code);
        process.emitWarning(msg, 'DeprecationWarning', code);
      }
    }
    return new.target ? Reflect.construct(fn, args, new.target) : fn.apply(this, args);
  }
  Object.setPrototypeOf(deprecated, fn);
  if (fn.prototype) deprecated.prototype = fn.prototype;
  return deprecated as unknown as T;
}

export function debuglog(_section: string): ((...args: unknown[]) => void) & { enabled: boolean } {
  // NODE_DEBUG is read by Deno only with env access; the sandbox's debug logs are off.
  const log = Object.assign(() => {}, { enabled: false });
  return log;
}

export function stripVTControlCharacters(str: string): string {
  if (typeof str !== 'string') throw invalidArgType('str', 'of type string', str);
  // eslint-disable-next-line no-control-regex
  return str.replace(/[\u001B\u009B][[\]()#;?]*(?:(?:(?:(?:;[-a-zA-Z\d/#&.:=?%@~_]+)*|[a-zA-Z\d]+(?:;[-a-zA-Z\d/#&.:=?%@~_]*)*)?\u0007)|(?:(?:\d{1,4}(?:;\d{0,4})*)?[\dA-PR-TZcf-ntqry=><~]))/g, '');
}

/** `styleText(format, text)`: the sandbox's output is never a terminal, so no colour is added (as Deno with NO_COLOR). */
export function styleText(format: string | string[], text: string): string {
  if (typeof text !== 'string') throw invalidArgType('text', 'of type string', text);
  void format;
  return text;
}

const ERRNO_NAMES: Record<number, string> = {};
for (const name of ['EPERM', 'ENOENT', 'ESRCH', 'EINTR', 'EIO', 'ENXIO', 'E2BIG', 'EBADF', 'EAGAIN', 'ENOMEM', 'EACCES', 'EFAULT', 'EBUSY', 'EEXIST', 'EXDEV', 'ENODEV', 'ENOTDIR', 'EISDIR', 'EINVAL', 'ENFILE', 'EMFILE', 'ETXTBSY', 'EFBIG', 'ENOSPC', 'ESPIPE', 'EROFS', 'EMLINK', 'EPIPE', 'ENAMETOOLONG', 'ENOSYS', 'ENOTEMPTY', 'ELOOP', 'ENOTSUP', 'EADDRINUSE', 'ECONNRESET', 'ETIMEDOUT', 'ECONNREFUSED', 'ECANCELED']) {
  ERRNO_NAMES[uvErrno(name)] = name;
}

export function getSystemErrorName(errno: number): string {
  if (typeof errno !== 'number') throw invalidArgType('err', 'of type number', errno);
  if (errno >= 0 || !Number.isSafeInteger(errno)) throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "err" is out of range. It must be a negative integer. Received ${errno}`);
  return ERRNO_NAMES[errno] ?? `Unknown system error ${errno}`;
}

export function toUSVString(input: string): string {
  return (String(input) as string & { toWellFormed?: () => string }).toWellFormed?.() ?? String(input).replace(/[\uD800-\uDFFF]/g, (c, i: number, s: string) => {
    const code = c.charCodeAt(0);
    if (code <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) return c;
    if (code >= 0xdc00 && i > 0 && s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff) return c;
    return '\uFFFD';
  });
}

export function aborted(signal: AbortSignal, _resource: object): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

// The deprecated `util.is*` helpers Node still has.
const legacy = {
  isArray: Array.isArray,
  isBoolean: (v: unknown) => typeof v === 'boolean',
  isNull: (v: unknown) => v === null,
  isNullOrUndefined: (v: unknown) => v === null || v === undefined,
  isNumber: (v: unknown) => typeof v === 'number',
  isString: (v: unknown) => typeof v === 'string',
  isSymbol: (v: unknown) => typeof v === 'symbol',
  isUndefined: (v: unknown) => v === undefined,
  isRegExp: types.isRegExp,
  isObject: (v: unknown) => v !== null && typeof v === 'object',
  isDate: types.isDate,
  isError: (v: unknown) => v instanceof Error,
  isFunction: (v: unknown) => typeof v === 'function',
  isPrimitive: (v: unknown) => v === null || (typeof v !== 'object' && typeof v !== 'function'),
};

const util = {
  inspect,
  format,
  formatWithOptions,
  promisify,
  callbackify,
  inherits,
  deprecate,
  debuglog,
  debug: debuglog,
  isDeepStrictEqual,
  types,
  parseArgs,
  styleText,
  stripVTControlCharacters,
  getSystemErrorName,
  toUSVString,
  aborted,
  TextEncoder,
  TextDecoder,
  ...legacy,
};
Object.defineProperty(util, 'default', { value: util, enumerable: false });

export const modules = { util, 'util/types': types };
