/**
 * `node:assert` and `node:assert/strict`: Node's assertions with its AssertionError (code
 * ERR_ASSERTION, `actual`, `expected`, `operator`, `generatedMessage`) and its messages,
 * including the `+ actual - expected` line diff of deep comparisons. Pure code.
 */
import { inspect as baseInspect } from '../../web/inspect.ts';
import { isDeepEqual, isDeepStrictEqual } from '../node-util/index.ts';
import { invalidArgType } from '../node-errors/index.ts';

interface AssertionErrorOptions {
  message?: string | Error;
  actual?: unknown;
  expected?: unknown;
  operator?: string;
  stackStartFn?: Function;
}

const inspect = (v: unknown) => baseInspect(v, true, { quotes: 'node', depth: 1000, compact: 3, breakLength: Infinity, iterableLimit: Infinity, sorted: true });
const inspectLines = (v: unknown) => baseInspect(v, true, { quotes: 'node', depth: 1000, compact: false, breakLength: Infinity, iterableLimit: Infinity, sorted: true }).split('\n');

export class AssertionError extends Error {
  actual: unknown;
  expected: unknown;
  operator: string | undefined;
  generatedMessage: boolean;
  code = 'ERR_ASSERTION';

  constructor(options: AssertionErrorOptions) {
    if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
    const generated = options.message === undefined;
    super(generated ? defaultMessage(options) : String(options.message));
    this.name = 'AssertionError';
    this.actual = options.actual;
    this.expected = options.expected;
    this.operator = options.operator;
    this.generatedMessage = generated;
  }

  override toString(): string {
    return `${this.name} [${this.code}]: ${this.message}`;
  }
}

/** The line diff Node prints for deep comparisons: `+` what the script got, `-` what it expected. */
function diff(actual: unknown, expected: unknown, heading: string): string {
  const a = inspectLines(actual);
  const e = inspectLines(expected);
  if (a.length === 1 && e.length === 1) return `${heading}\n\n${a[0]} !== ${e[0]}\n`;
  const n = a.length;
  const m = e.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === e[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === e[j]) {
      out.push(`  ${a[i]}`);
      i++;
      j++;
      continue;
    }
    const plus: string[] = [];
    const minus: string[] = [];
    while (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!) && !(j < m && a[i] === e[j])) plus.push(`+ ${a[i++]}`);
    while (j < m && !(i < n && a[i] === e[j])) minus.push(`- ${e[j++]}`);
    out.push(...plus, ...minus);
  }
  return `${heading}\n+ actual - expected\n\n${out.join('\n')}\n`;
}

/** Node's message for values that should have differed: the value on the line, or below it when it spans lines. */
function unequal(base: string, value: unknown): string {
  const lines = inspectLines(value);
  return lines.length === 1 ? `${base.slice(0, -1)}: ${lines[0]}` : `${base}\n\n${lines.join('\n')}\n`;
}

function defaultMessage(o: AssertionErrorOptions): string {
  switch (o.operator) {
    case 'strictEqual':
      return diff(o.actual, o.expected, 'Expected values to be strictly equal:');
    case 'deepStrictEqual':
      return diff(o.actual, o.expected, 'Expected values to be strictly deep-equal:');
    case 'deepEqual':
      return diff(o.actual, o.expected, 'Expected values to be loosely deep-equal:');
    case 'notStrictEqual':
      return unequal(typeof o.actual === 'object' && o.actual !== null || typeof o.actual === 'function' ? 'Expected "actual" not to be reference-equal to:' : 'Expected "actual" to be strictly unequal to:', o.actual);
    case 'notDeepStrictEqual':
      return unequal('Expected "actual" not to be strictly deep-equal to:', o.actual);
    case 'notDeepEqual':
      return unequal('Expected "actual" not to be loosely deep-equal to:', o.actual);
    default:
      return `${inspect(o.actual)} ${o.operator} ${inspect(o.expected)}`;
  }
}

function fail(actual: unknown, expected: unknown, message: string | Error | undefined, operator: string): never {
  if (message instanceof Error) throw message;
  throw new AssertionError({ actual, expected, operator, ...(message === undefined ? {} : { message }) });
}

function okWith(name: string) {
  return function ok(...args: unknown[]): void {
    if (args.length === 0) throw new AssertionError({ message: `No value argument passed to \`${name}()\``, actual: undefined, expected: true, operator: '==' });
    const [value, message] = args;
    if (value) return;
    if (message instanceof Error) throw message;
    const err = new AssertionError({ actual: value, expected: true, operator: '==', ...(message === undefined ? { message: `The expression evaluated to a falsy value:\n\n  ${name}(${inspect(value)})\n` } : { message: message as string }) });
    if (message === undefined) err.generatedMessage = true;
    throw err;
  };
}

function matchesExpected(error: unknown, expected: unknown, message: string | Error | undefined, fnName: string): void {
  if (expected === undefined) return;
  if (expected instanceof RegExp) {
    const text = String(error);
    if (!expected.test(text)) {
      const e = new AssertionError({ actual: error, expected, operator: fnName, message: (message as string) ?? `The input did not match the regular expression ${String(expected)}. Input:\n\n${inspect(text)}\n` });
      e.generatedMessage = message === undefined;
      throw e;
    }
    return;
  }
  if (typeof expected === 'function') {
    if (expected.prototype !== undefined && error instanceof (expected as new () => unknown)) return;
    if (Error.isPrototypeOf(expected)) throw error;
    const result = (expected as (e: unknown) => unknown).call({}, error);
    if (result !== true) {
      throw new AssertionError({ actual: error, expected, operator: fnName, message: (message as string) ?? `The ${expected.name ? `"${expected.name}" ` : ''}validation function is expected to return "true". Received ${inspect(result)}` });
    }
    return;
  }
  if (typeof expected === 'object' && expected !== null) {
    for (const key of Object.keys(expected)) {
      const want = (expected as Record<string, unknown>)[key];
      const got = (error as Record<string, unknown>)?.[key];
      const ok = want instanceof RegExp && typeof got === 'string' ? want.test(got) : isDeepStrictEqual(got, want);
      if (!ok) throw new AssertionError({ actual: error, expected, operator: fnName, message: (message as string) ?? diff(got, want, 'Expected values to be strictly deep-equal:') });
    }
  }
}

function makeAssert(strict: boolean): Record<string, unknown> & ((...args: unknown[]) => void) {
  const assert = okWith('assert') as Record<string, unknown> & ((...args: unknown[]) => void);
  const methods: Record<string, unknown> = {
    ok: okWith('assert.ok'),
    fail(message: string | Error = 'Failed'): never {
      if (message instanceof Error) throw message;
      const e = new AssertionError({ message, operator: 'fail' });
      e.generatedMessage = false;
      throw e;
    },
    equal(actual: unknown, expected: unknown, message?: string | Error) {
      // eslint-disable-next-line eqeqeq
      if (strict ? !Object.is(actual, expected) : !(actual == expected || (Number.isNaN(actual) && Number.isNaN(expected)))) fail(actual, expected, message, strict ? 'strictEqual' : '==');
    },
    notEqual(actual: unknown, expected: unknown, message?: string | Error) {
      // eslint-disable-next-line eqeqeq
      if (strict ? Object.is(actual, expected) : actual == expected || (Number.isNaN(actual) && Number.isNaN(expected))) fail(actual, expected, message, strict ? 'notStrictEqual' : '!=');
    },
    strictEqual(actual: unknown, expected: unknown, message?: string | Error) {
      if (!Object.is(actual, expected)) fail(actual, expected, message, 'strictEqual');
    },
    notStrictEqual(actual: unknown, expected: unknown, message?: string | Error) {
      if (Object.is(actual, expected)) fail(actual, expected, message, 'notStrictEqual');
    },
    deepEqual(actual: unknown, expected: unknown, message?: string | Error) {
      if (strict ? !isDeepStrictEqual(actual, expected) : !isDeepEqual(actual, expected)) fail(actual, expected, message, strict ? 'deepStrictEqual' : 'deepEqual');
    },
    notDeepEqual(actual: unknown, expected: unknown, message?: string | Error) {
      if (strict ? isDeepStrictEqual(actual, expected) : isDeepEqual(actual, expected)) fail(actual, expected, message, strict ? 'notDeepStrictEqual' : 'notDeepEqual');
    },
    deepStrictEqual(actual: unknown, expected: unknown, message?: string | Error) {
      if (!isDeepStrictEqual(actual, expected)) fail(actual, expected, message, 'deepStrictEqual');
    },
    notDeepStrictEqual(actual: unknown, expected: unknown, message?: string | Error) {
      if (isDeepStrictEqual(actual, expected)) fail(actual, expected, message, 'notDeepStrictEqual');
    },
    throws(fn: () => unknown, expected?: unknown, message?: string | Error) {
      if (typeof fn !== 'function') throw invalidArgType('fn', 'of type function', fn);
      if (typeof expected === 'string') {
        message = expected;
        expected = undefined;
      }
      try {
        fn();
      } catch (error) {
        matchesExpected(error, expected, message, 'throws');
        return;
      }
      const e = new AssertionError({ actual: undefined, expected, operator: 'throws', message: `Missing expected exception${message ? `: ${String(message)}` : '.'}` });
      e.generatedMessage = false;
      throw e;
    },
    doesNotThrow(fn: () => unknown, expected?: unknown, message?: string | Error) {
      try {
        fn();
      } catch (error) {
        if (typeof expected === 'string') message = expected;
        throw new AssertionError({ actual: error, expected, operator: 'doesNotThrow', message: `Got unwanted exception${message ? `: ${String(message)}` : '.'}\nActual message: "${(error as Error)?.message}"` });
      }
    },
    async rejects(promiseOrFn: Promise<unknown> | (() => Promise<unknown>), expected?: unknown, message?: string | Error) {
      if (typeof expected === 'string') {
        message = expected;
        expected = undefined;
      }
      try {
        await (typeof promiseOrFn === 'function' ? promiseOrFn() : promiseOrFn);
      } catch (error) {
        matchesExpected(error, expected, message, 'rejects');
        return;
      }
      const e = new AssertionError({ actual: undefined, expected, operator: 'rejects', message: `Missing expected rejection${message ? `: ${String(message)}` : '.'}` });
      e.generatedMessage = false;
      throw e;
    },
    async doesNotReject(promiseOrFn: Promise<unknown> | (() => Promise<unknown>), expected?: unknown, message?: string | Error) {
      try {
        await (typeof promiseOrFn === 'function' ? promiseOrFn() : promiseOrFn);
      } catch (error) {
        if (typeof expected === 'string') message = expected;
        throw new AssertionError({ actual: error, expected, operator: 'doesNotReject', message: `Got unwanted rejection${message ? `: ${String(message)}` : '.'}\nActual message: "${(error as Error)?.message}"` });
      }
    },
    match(actual: string, regexp: RegExp, message?: string | Error) {
      if (!(regexp instanceof RegExp)) throw invalidArgType('regexp', 'an instance of RegExp', regexp);
      if (typeof actual !== 'string' || !regexp.test(actual)) {
        if (message instanceof Error) throw message;
        const e = new AssertionError({ actual, expected: regexp, operator: 'match', message: message ?? (typeof actual !== 'string' ? `The "string" argument must be of type string. Received type ${typeof actual} (${inspect(actual)})` : `The input did not match the regular expression ${String(regexp)}. Input:\n\n${inspect(actual)}\n`) });
        e.generatedMessage = message === undefined;
        throw e;
      }
    },
    doesNotMatch(actual: string, regexp: RegExp, message?: string | Error) {
      if (typeof actual === 'string' && regexp.test(actual)) {
        fail(actual, regexp, message ?? `The input was expected to not match the regular expression ${String(regexp)}. Input:\n\n${inspect(actual)}\n`, 'doesNotMatch');
      }
    },
    ifError(value: unknown) {
      if (value === null || value === undefined) return;
      const message = `ifError got unwanted exception: ${typeof value === 'object' && typeof (value as Error).message === 'string' ? (value as Error).message : inspect(value)}`;
      throw new AssertionError({ actual: value, expected: null, operator: 'ifError', message });
    },
    AssertionError,
  };
  if (strict) {
    methods.equal = methods.strictEqual;
    methods.notEqual = methods.notStrictEqual;
    methods.deepEqual = methods.deepStrictEqual;
    methods.notDeepEqual = methods.notDeepStrictEqual;
  }
  Object.assign(assert, methods);
  return assert;
}

const assert = makeAssert(false);
const strict = makeAssert(true);
assert.strict = strict;
strict.strict = strict;
Object.defineProperty(assert, 'default', { value: assert, enumerable: false });
Object.defineProperty(strict, 'default', { value: strict, enumerable: false });

export const modules = { assert, 'assert/strict': strict };
