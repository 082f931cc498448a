/**
 * `Deno.test` inside the isolate. Under `runtimectl sandbox test` (mode `test`) it records
 * each registration, in every form Deno accepts, with the position of the call; the host's
 * test runner (features/sandbox-run/runner/test-runner.ts) then asks for the list and runs the tests one by
 * one (`\u0000rtc.runTest`), each under its own permissions (the `test.permissions` op
 * narrows the run's grant for its duration) and with `t.step` reported as events on the
 * output channel the runner reads (fd 3), in the order they happen. Under `sandbox run`,
 * as under `deno run`, `Deno.test` only validates its arguments.
 */
import { callSync } from '../host.ts';
import { shimConfig } from '../shim-config.ts';
import { denoNamespace } from '../deno/namespace-ref.ts';
import { monotonicNow } from '../web/clock.ts';

type TestFn = (t: TestContext) => unknown;
type Permissions = 'inherit' | 'none' | Record<string, unknown>;

interface Definition {
  name: string;
  fn: TestFn;
  ignore: boolean;
  only: boolean;
  permissions: Permissions | undefined;
  /** the stack at the Deno.test call; the runner maps its first user frame to the source */
  stack: string;
}

export interface TestErrorInfo {
  name: string;
  message: string;
  stack: string;
  isError: boolean;
}

const definitions: Definition[] = [];

/** The stack from the caller of `omit` (the Deno.test call in the script). */
function callSite(omit: Function): string {
  const holder: { stack?: string } = {};
  (Error as unknown as { captureStackTrace: (o: object, f?: Function) => void }).captureStackTrace(holder, omit);
  return holder.stack ?? '';
}

/** Deno's argument rules and messages for the five call forms. */
function normalize(args: unknown[]): Omit<Definition, 'stack'> {
  const [a, b, c] = args;
  let name: unknown;
  let fn: unknown;
  let options: Record<string, unknown> = {};
  if (typeof a === 'string') {
    if (a === '') throw new TypeError("The test name can't be empty");
    name = a;
    if (typeof b === 'function') fn = b;
    else if (b !== null && typeof b === 'object') {
      if ('name' in b) throw new TypeError("Unexpected 'name' field in options, test name is already provided as the first argument");
      if ('fn' in b) throw new TypeError("Unexpected 'fn' field in options, test function is already provided as the third argument");
      options = b as Record<string, unknown>;
      fn = c;
    }
    if (typeof fn !== 'function') throw new TypeError('Missing test function');
  } else if (typeof a === 'function') {
    if (!a.name) throw new TypeError('The test function must have a name');
    name = a.name;
    fn = a;
  } else {
    if (a === undefined || a === null) throw new TypeError("Cannot read properties of undefined (reading 'fn')");
    options = a as Record<string, unknown>;
    if (typeof b === 'function') {
      if ('fn' in options) throw new TypeError("Unexpected 'fn' field in options, test function is already provided as the second argument");
      fn = b;
      name = options.name ?? b.name;
      if (!name) throw new TypeError('The test function must have a name');
    } else {
      fn = options.fn;
      if (typeof fn !== 'function') throw new TypeError("Expected 'fn' field in the first argument to be a test function");
      name = options.name ?? (fn as { name: string }).name;
      if (!name) throw new TypeError("The test name can't be empty");
    }
  }
  return {
    name: String(name),
    fn: fn as TestFn,
    ignore: Boolean(options.ignore),
    only: Boolean(options.only),
    permissions: options.permissions as Permissions | undefined,
  };
}

// Under `deno run`, Deno.test does nothing at all.
function register(args: unknown[], omit: Function, extra: Partial<Definition> = {}): void {
  if (shimConfig().mode !== 'test') return;
  definitions.push({ ...normalize(args), ...extra, stack: callSite(omit) });
}

function test(...args: unknown[]): void {
  register(args, test);
}
test.ignore = function ignore(...args: unknown[]): void {
  register(args, ignore, { ignore: true });
};
test.only = function only(...args: unknown[]): void {
  register(args, only, { only: true });
};

function event(payload: Record<string, unknown>): void {
  callSync('io.write', { fd: 3, text: JSON.stringify(payload) });
}

export function describeError(error: unknown): TestErrorInfo {
  if (error instanceof Error) {
    let stack = '';
    try {
      stack = String(error.stack ?? '');
    } catch {
      stack = '';
    }
    return { name: String(error.name), message: String(error.message), stack, isError: true };
  }
  let shown: string;
  try {
    shown = typeof error === 'string' ? error : JSON.stringify(error) ?? String(error);
  } catch {
    shown = Object.prototype.toString.call(error);
  }
  return { name: typeof error, message: shown, stack: '', isError: false };
}

class TestContext {
  readonly name: string;
  readonly origin: string;
  readonly parent: TestContext | undefined;
  readonly #depth: number;
  /** failed, passed and ignored steps, for the summary */
  readonly counts = { passed: 0, failed: 0, ignored: 0 };
  #failedSteps = 0;

  constructor(name: string, origin: string, parent: TestContext | undefined, depth: number) {
    this.name = name;
    this.origin = origin;
    this.parent = parent;
    this.#depth = depth;
  }

  get failedSteps(): number {
    return this.#failedSteps;
  }

  async step(...args: unknown[]): Promise<boolean> {
    const holder: { stack?: string } = {};
    (Error as unknown as { captureStackTrace: (o: object, f?: Function) => void }).captureStackTrace(holder, TestContext.prototype.step);
    const d = normalize(args);
    const depth = this.#depth + 1;
    event({ type: 'stepStart', name: d.name, depth });
    if (d.ignore) {
      event({ type: 'stepEnd', name: d.name, depth, status: 'ignored', durationMs: 0, stack: holder.stack ?? '' });
      this.#root().counts.ignored++;
      return false;
    }
    const child = new TestContext(d.name, this.origin, this, depth);
    const started = monotonicNow();
    let error: TestErrorInfo | undefined;
    try {
      // called as a plain function, so its frame reads `at file:///...` as under Deno
      const fn = d.fn;
      await fn(child);
    } catch (e) {
      error = describeError(e);
    }
    const durationMs = monotonicNow() - started;
    const status = error || child.failedSteps > 0 ? 'failed' : 'ok';
    event({ type: 'stepEnd', name: d.name, depth, status, durationMs, error: error ?? null, failedSteps: child.failedSteps, stack: holder.stack ?? '' });
    if (status === 'failed') {
      this.#failedSteps++;
      this.#root().counts.failed++;
    } else this.#root().counts.passed++;
    return status === 'ok';
  }

  #root(): TestContext {
    let at: TestContext = this;
    while (at.parent) at = at.parent;
    return at;
  }
}

/** The host's view of the registered tests. */
export function list(): { name: string; ignore: boolean; only: boolean; permissions: Permissions | null; stack: string }[] {
  return definitions.map((d) => ({ name: d.name, ignore: d.ignore, only: d.only, permissions: d.permissions ?? null, stack: d.stack }));
}

/** Runs test `index` under its permissions; the host formats the result. */
export async function run(index: number): Promise<Record<string, unknown>> {
  const d = definitions[index];
  if (!d) throw new Error(`no test ${index}`);
  const origin = callSync<string>('process.mainModule', {});
  const context = new TestContext(d.name, origin, undefined, 0);
  const started = monotonicNow();
  let error: TestErrorInfo | undefined;
  let narrowed = false;
  try {
    if (d.permissions !== undefined) {
      callSync('test.permissions', { permissions: d.permissions });
      narrowed = true;
    }
    const fn = d.fn;
    await fn(context);
  } catch (e) {
    error = describeError(e);
  } finally {
    if (narrowed) callSync('test.permissions', { permissions: null });
  }
  // A test whose steps failed fails too, with no error of its own (Deno reports the steps).
  const failed = error !== undefined || context.failedSteps > 0;
  return { status: failed ? 'failed' : 'ok', durationMs: monotonicNow() - started, error: error ?? null, failedSteps: context.failedSteps, steps: context.counts };
}

Object.defineProperty(denoNamespace(), 'test', { value: test, writable: true, configurable: true, enumerable: true });
