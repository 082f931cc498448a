/**
 * `runtimectl sandbox test`: runs test files the way `deno test` does, for the subset the
 * sandbox supports, and reports them in Deno's format. One module, used by the CLI verb and
 * by the gate (one runner, not two). API:
 *
 *   const runner = await createTestRunner({ cacheDir?, audit? });
 *   const result = await runner.run({ files, permissionFlags, filter?, cwd, env, profile?, limits?, args?, writeQuota? });
 *   // result: { ok, exitCode (0 / 1), stdout, stderr, files: TestFileResult[], summary: TestSummary }
 *   await runner.close();
 *
 * Each file is bundled with `import.meta.main` false and loaded in its own isolate (the
 * profile's tier: in-process, or its own sandbox host process), under one grant: the run's
 * flags ∩ the profile's ceiling. Its registrations are listed, filtered (`--filter` text or
 * `/regex/`, `only`), then each test runs in turn; a test's `permissions` narrow the grant
 * while it runs (sandboxes/deno/ops/test-permissions.ts). Sanitizers are not run. Exit status
 * 1 when a test failed, a file failed to load, or `only` was used, as in Deno.
 */
import type { AuditEvent } from '../../../kernel/broker/op.ts';
import { defaultCacheDir } from '../../../sandboxes/loader/bundle.ts';
import type { StackMapper } from '../../../sandboxes/loader/stack-remap.ts';
import { WriteQuota, type WriteQuotaLimits, type WriteQuotaUsage } from '../../../kernel/broker/write-quota.ts';
import { isKernelError, kernelError, type KernelError } from '../../../kernel/errors.ts';
import { assertNodeFlags } from '../../../sandboxes/isolate/node-flags.ts';
import { IsolateRuntime, type CompiledSource } from '../../../sandboxes/isolate/isolate-runtime.ts';
import { loadShim } from '../../../sandboxes/isolate/shim-source.ts';
import { RemoteRuntime } from '../../../sandboxes/pool/remote-runtime.ts';
import { prepareModule, type PreparedModule } from './prepare.ts';
import type { ScriptLimits } from './script-run-types.ts';
import { displayPath, findTestFiles } from './test-files.ts';
import { locationOf, renderEnd, renderTest, type TestCaseResult, type TestErrorInfo, type TestEvent, type TestFileResult, type TestSummary } from './test-report.ts';

export type { TestCaseResult, TestErrorInfo, TestFileResult, TestSummary };

export interface TestRunRequest {
  /** files or folders; none means every test file under `cwd` (Deno's rule) */
  files: readonly string[];
  /** Deno permission flags, as `deno test` takes them */
  permissionFlags: readonly string[];
  /** run only tests whose name contains this, or matches it when written `/regex/` */
  filter?: string;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** sandbox profile (default: `default`, the process tier) */
  profile?: string;
  limits?: Partial<ScriptLimits>;
  /** `Deno.args` of every test file (the gate hands each run its scratch folder) */
  args?: readonly string[];
  /** bytes and files/folders the whole run may add to the disk, one account for all its files (kernel/broker/write-quota.ts) */
  writeQuota?: WriteQuotaLimits;
}

export interface TestRunResult {
  ok: boolean;
  exitCode: number;
  stdout: string;
  stderr: string;
  files: TestFileResult[];
  summary: TestSummary;
  /** what the run added to the disk, when it ran under a write quota */
  writes?: WriteQuotaUsage;
}

export interface TestRunnerOptions {
  cacheDir?: string;
  audit?: (event: AuditEvent) => void;
}

interface Registered {
  name: string;
  ignore: boolean;
  only: boolean;
  permissions: unknown;
  stack: string;
}

interface RawResult {
  status: 'ok' | 'failed';
  durationMs: number;
  error: TestErrorInfo | null;
  failedSteps: number;
  steps: { passed: number; failed: number; ignored: number };
}

/** A loaded test file: its isolate, where its output goes now, and its registrations. */
interface LoadedFile {
  prepared: PreparedModule;
  display: string;
  runtime: IsolateRuntime | RemoteRuntime | undefined;
  result: TestFileResult;
  registered: Registered[];
  sink: TestEvent[] | null;
}

function matcher(filter: string | undefined): (name: string) => boolean {
  if (filter === undefined) return () => true;
  const regex = /^\/(.*)\/$/.exec(filter);
  if (regex) {
    const re = new RegExp(regex[1]!);
    return (name) => re.test(name);
  }
  return (name) => name.includes(filter);
}

/**
 * A kernel error that ended a file or a test, as the report shows it: a script's own error the
 * kernel passed on (its stack kept), or the kernel's (a limit, a dead host) with its code as data.
 */
function kernelFailure(error: KernelError): TestErrorInfo {
  const details = error.details as { name?: string; message?: string; stack?: string };
  if (details.stack) return { name: details.name ?? 'Error', message: details.message ?? '', stack: details.stack, isError: true };
  return { name: error.name, message: error.message, stack: '', isError: true, code: error.code };
}

export class TestRunner {
  readonly cacheDir: string;
  readonly #shim: CompiledSource;
  readonly #options: TestRunnerOptions;

  constructor(shim: CompiledSource, options: TestRunnerOptions) {
    this.#shim = shim;
    this.#options = options;
    this.cacheDir = options.cacheDir ?? defaultCacheDir();
  }

  async #load(file: string, request: TestRunRequest, quota: WriteQuota | undefined, stderr: string[]): Promise<LoadedFile> {
    const display = displayPath(request.cwd, file);
    const result: TestFileResult = { file, display, preOutput: '', tests: [], uncaught: null };
    const prepared = await prepareModule({ file, cwd: request.cwd, env: request.env, permissionFlags: request.permissionFlags, profile: request.profile, limits: request.limits, cacheDir: this.cacheDir, audit: this.#options.audit, main: false, ...(quota ? { writeQuota: quota } : {}) });
    prepared.broker.context.testGrant = { base: prepared.broker.context.gate };
    const loaded: LoadedFile = { prepared, display, runtime: undefined, result, registered: [], sink: null };
    const onOutput = (fd: 1 | 2 | 3, text: string): void => {
      if (fd === 3) {
        const event = JSON.parse(text) as { type: string; error?: TestErrorInfo } & Record<string, unknown>;
        if (event.type === 'uncaught') result.uncaught ??= event.error ?? null;
        else if (loaded.sink && event.type === 'stepStart') loaded.sink.push({ kind: 'stepStart', name: String(event.name), depth: Number(event.depth) });
        else if (loaded.sink && event.type === 'stepEnd') {
          loaded.sink.push({
            kind: 'stepEnd', name: String(event.name), depth: Number(event.depth), status: event.status as 'ok', durationMs: Number(event.durationMs),
            error: (event.error as TestErrorInfo | null) ?? null, failedSteps: Number(event.failedSteps ?? 0), location: locationOf(prepared.mapper, String(event.stack ?? ''), request.cwd),
          });
        }
        return;
      }
      if (loaded.sink) loaded.sink.push({ kind: 'out', fd, text });
      else if (fd === 1) result.preOutput += text;
      else stderr.push(text);
    };
    const { profile, limits, source, broker } = prepared;
    try {
      if (profile.tier === 'in-process') {
        const runtime = IsolateRuntime.create(this.#shim, { limits, webAssembly: profile.webAssembly, args: [...(request.args ?? [])], syncMode: 'callback', ops: broker, onOutput, mode: 'test' });
        loaded.runtime = runtime;
        await runtime.load(source);
      } else {
        loaded.runtime = await RemoteRuntime.start({ cacheDir: this.cacheDir, shim: this.#shim, source, limits, args: [...(request.args ?? [])], webAssembly: profile.webAssembly, rssCapMb: profile.rssCapMb ?? 512, ops: broker, onOutput, mode: 'test' });
      }
      loaded.registered = (await loaded.runtime.call('\u0000rtc.tests', [])) as Registered[];
    } catch (error) {
      if (!isKernelError(error)) throw error;
      result.uncaught ??= kernelFailure(error);
    }
    return loaded;
  }

  async #runTest(loaded: LoadedFile, index: number, test: Registered, cwd: string): Promise<TestCaseResult> {
    const location = locationOf(loaded.prepared.mapper, test.stack, cwd);
    const events: TestEvent[] = [];
    loaded.sink = events;
    try {
      const raw = (await loaded.runtime!.call('\u0000rtc.runTest', [index])) as RawResult;
      return { name: test.name, location, status: raw.status, durationMs: raw.durationMs, error: raw.error, failedSteps: raw.failedSteps, steps: raw.steps, events };
    } catch (error) {
      if (!isKernelError(error)) throw error;
      // A limit or a dead sandbox host ends the test, and the file: the isolate is gone.
      return { name: test.name, location, status: 'failed', durationMs: 0, error: kernelFailure(error), failedSteps: 0, steps: { passed: 0, failed: 0, ignored: 0 }, events };
    } finally {
      loaded.sink = null;
    }
  }

  async run(request: TestRunRequest): Promise<TestRunResult> {
    const started = performance.now();
    const stdout: string[] = [];
    const stderr: string[] = [];
    const summary: TestSummary = { passed: 0, failed: 0, ignored: 0, filteredOut: 0, passedSteps: 0, failedSteps: 0, ignoredSteps: 0, onlyUsed: false, durationMs: 0 };
    let files: string[];
    try {
      files = findTestFiles(request.cwd, request.files);
      if (files.length === 0) throw kernelError('RTC_ERR_CLI_FILE_NOT_FOUND', `no test modules found in ${request.files.join(', ') || request.cwd}`);
    } catch (error) {
      if (!isKernelError(error)) throw error;
      return { ok: false, exitCode: 1, stdout: '', stderr: `error: ${error.code}: ${error.message}\n`, files: [], summary };
    }
    const loaded: LoadedFile[] = [];
    const quota = request.writeQuota ? new WriteQuota(request.writeQuota) : undefined;
    const writes = (): { writes?: WriteQuotaUsage } => (quota ? { writes: quota.usage } : {});
    try {
      // Every file is loaded first: `only` anywhere narrows the whole run, as in Deno.
      for (const file of files) {
        try {
          loaded.push(await this.#load(file, request, quota, stderr));
        } catch (error) {
          if (!isKernelError(error)) throw error;
          stderr.push(`error: ${error.code}: ${error.message}\n`);
          return { ok: false, exitCode: 1, stdout: stdout.join(''), stderr: stderr.join(''), files: loaded.map((l) => l.result), summary, ...writes() };
        }
      }
      const wanted = matcher(request.filter);
      for (const file of loaded) {
        const { result } = file;
        // `only` narrows its own file (Deno runs each file apart); the run still fails at the end.
        const only = file.registered.some((t) => t.only && wanted(t.name));
        summary.onlyUsed ||= only;
        const chosen = file.registered.map((t, i) => ({ t, i })).filter(({ t }) => wanted(t.name) && (!only || t.only));
        summary.filteredOut += file.registered.length - chosen.length;
        if (result.preOutput) stdout.push(`------- pre-test output -------\n${result.preOutput}${result.preOutput.endsWith('\n') ? '' : '\n'}----- pre-test output end -----\n`);
        if (result.uncaught && file.registered.length === 0) {
          stdout.push(`Uncaught error from ${file.display} FAILED\n`);
          summary.failed++;
          continue;
        }
        if (chosen.length > 0) stdout.push(`running ${chosen.length} test${chosen.length === 1 ? '' : 's'} from ${file.display}\n`);
        for (const { t, i } of chosen) {
          if (result.uncaught) break;
          let test: TestCaseResult;
          if (t.ignore) test = { name: t.name, location: '', status: 'ignored', durationMs: 0, error: null, failedSteps: 0, steps: { passed: 0, failed: 0, ignored: 0 }, events: [] };
          else test = await this.#runTest(file, i, t, request.cwd);
          result.tests.push(test);
          stdout.push(renderTest(test, (text) => stderr.push(text)));
          summary[test.status === 'ok' ? 'passed' : test.status === 'failed' ? 'failed' : 'ignored']++;
          summary.passedSteps += test.steps.passed;
          summary.failedSteps += test.steps.failed;
          summary.ignoredSteps += test.steps.ignored;
        }
        if (result.uncaught && file.registered.length > 0) summary.failed++;
      }
      summary.durationMs = performance.now() - started;
      const end = renderEnd(loaded.map((l) => ({ file: l.result, mapper: l.prepared.mapper as StackMapper })), summary);
      stdout.push(end.stdout);
      stderr.push(end.stderr);
      const ok = summary.failed === 0 && !summary.onlyUsed;
      return { ok, exitCode: ok ? 0 : 1, stdout: stdout.join(''), stderr: stderr.join(''), files: loaded.map((l) => l.result), summary, ...writes() };
    } finally {
      for (const file of loaded) {
        file.runtime?.dispose();
        file.prepared.broker.close();
      }
    }
  }

  async close(): Promise<void> {}
}

export async function createTestRunner(options: TestRunnerOptions = {}): Promise<TestRunner> {
  assertNodeFlags();
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  return new TestRunner(await loadShim(cacheDir), { ...options, cacheDir });
}
