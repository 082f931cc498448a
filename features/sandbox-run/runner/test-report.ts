/**
 * `deno test`'s report, byte for byte for what the sandbox runs: per file a
 * `running N tests from ./file` line, per test `name ... ok (Xms)` (or `FAILED`, `ignored`),
 * an output block around what the test printed, nested `t.step` lines, then the ERRORS and
 * FAILURES sections and the summary line (`ok | 3 passed (1 step) | 0 failed (12ms)`).
 */
import type { StackMapper } from '../../../sandboxes/loader/stack-remap.ts';
import { firstUserFrame, mapUncaughtReport } from '../../../sandboxes/loader/stack-remap.ts';
import { displayPath } from './test-files.ts';

export interface TestErrorInfo {
  name: string;
  message: string;
  stack: string;
  isError: boolean;
  /**
   * The kernel error code of a failure the host itself reports (a limit, a dead sandbox host,
   * a file that would not load): data beside the message, which never carries it.
   */
  code?: string;
}

/** `KernelError: RTC_ERR_SANDBOX_CPU: CPU time limit of 1000 ms exceeded`, or `Error: boom`: the error's head line as shown. */
export function errorHead(error: TestErrorInfo): string {
  return `${error.name}: ${error.code ? `${error.code}: ` : ''}${error.message}`;
}

export type TestEvent =
  | { kind: 'out'; fd: 1 | 2; text: string }
  | { kind: 'stepStart'; name: string; depth: number }
  | { kind: 'stepEnd'; name: string; depth: number; status: 'ok' | 'failed' | 'ignored'; durationMs: number; error: TestErrorInfo | null; failedSteps: number; location: string };

export interface TestCaseResult {
  name: string;
  /** `./file.ts:line:column` of the Deno.test call */
  location: string;
  status: 'ok' | 'failed' | 'ignored';
  durationMs: number;
  /** the test's own error (not set when only steps failed) */
  error: TestErrorInfo | null;
  failedSteps: number;
  steps: { passed: number; failed: number; ignored: number };
  events: TestEvent[];
}

export interface TestFileResult {
  file: string;
  /** ./path as Deno shows it */
  display: string;
  /** what the module printed while loading */
  preOutput: string;
  tests: TestCaseResult[];
  /** an error outside any test (a throw at top level, an unhandled one from a timer) */
  uncaught: TestErrorInfo | null;
}

export interface TestSummary {
  passed: number;
  failed: number;
  ignored: number;
  filteredOut: number;
  passedSteps: number;
  failedSteps: number;
  ignoredSteps: number;
  onlyUsed: boolean;
  durationMs: number;
}

/** Deno's durations: `(523µs)` below a millisecond, `(12ms)`, `(3s)`. */
export function formatDuration(ms: number): string {
  if (ms < 1) return `${Math.round(ms * 1000)}µs`;
  if (ms < 1000) return `${Math.round(ms)}ms`;
  return `${Math.round(ms / 1000)}s`;
}

function resultText(status: 'ok' | 'failed' | 'ignored', durationMs: number, failedSteps: number, ownError: boolean): string {
  if (status === 'ignored') return 'ignored (0ms)';
  if (status === 'ok') return `ok (${formatDuration(durationMs)})`;
  const due = failedSteps > 0 && !ownError ? ` (due to ${failedSteps} failed step${failedSteps > 1 ? 's' : ''})` : '';
  return `FAILED${due} (${formatDuration(durationMs)})`;
}

/** One test's lines; stderr the test wrote goes to `err`, in the output block's place. */
export function renderTest(test: TestCaseResult, err: (text: string) => void): string {
  let out = '';
  // A header printed for each open level (0 = the test itself) once something happens inside it.
  const names: string[] = [test.name];
  const opened: boolean[] = [false];
  let inOutput = false;
  const indent = (depth: number) => '  '.repeat(depth);
  const openAll = (): void => {
    for (let d = 0; d < names.length; d++) {
      if (!opened[d]) {
        out += `${indent(d)}${names[d]} ...\n`;
        opened[d] = true;
      }
    }
  };
  const closeOutput = (): void => {
    if (inOutput) out += '----- output end -----\n';
    inOutput = false;
  };
  for (const event of test.events) {
    if (event.kind === 'out') {
      openAll();
      if (!inOutput) out += '------- output -------\n';
      inOutput = true;
      if (event.fd === 1) out += event.text;
      else err(event.text);
      continue;
    }
    closeOutput();
    if (event.kind === 'stepStart') {
      openAll();
      names[event.depth] = event.name;
      opened[event.depth] = false;
      continue;
    }
    const line = resultText(event.status, event.durationMs, event.failedSteps, event.error !== null && event.failedSteps === 0);
    out += opened[event.depth] ? `${indent(event.depth)}${event.name} ... ${line}\n` : `${indent(event.depth)}${event.name} ... ${line}\n`;
    names.length = event.depth;
    opened.length = event.depth;
  }
  closeOutput();
  out += `${test.name} ... ${resultText(test.status, test.durationMs, test.failedSteps, test.error !== null)}\n`;
  return out;
}

/** `error: Error: boom` plus the code frame and the script's own frames. */
export function errorText(error: TestErrorInfo, mapper: StackMapper): string {
  if (!error.isError) return `error: ${error.message}`;
  const body = error.stack && error.stack.startsWith(`${error.name}`) ? error.stack : `${errorHead(error)}${error.stack ? `\n${error.stack.split('\n').filter((l) => /^\s+at /.test(l)).join('\n')}` : ''}`;
  return mapUncaughtReport(mapper, `error: ${body}`).replace(/\n+$/, '');
}

export function locationOf(mapper: StackMapper, stack: string, cwd: string): string {
  const frame = firstUserFrame(mapper, stack);
  return frame ? `${displayPath(cwd, frame.file)}:${frame.line}:${frame.column}` : '(unknown)';
}

interface Failure {
  title: string;
  text: string;
}

/** The failures of one file, in order: a test's own error, each failed step, an uncaught error. */
export function failuresOf(file: TestFileResult, mapper: StackMapper): Failure[] {
  const failures: Failure[] = [];
  for (const test of file.tests) {
    if (test.status !== 'failed') continue;
    const path: string[] = [test.name];
    for (const event of test.events) {
      if (event.kind === 'stepStart') path[event.depth] = event.name;
      if (event.kind === 'stepEnd') {
        path.length = event.depth + 1;
        if (event.status === 'failed' && event.failedSteps === 0 && event.error) {
          failures.push({ title: `${path.join(' ... ')} => ${event.location}`, text: errorText(event.error, mapper) });
        }
        path.length = event.depth;
      }
    }
    if (test.error) failures.push({ title: `${test.name} => ${test.location}`, text: errorText(test.error, mapper) });
  }
  if (file.uncaught) {
    failures.push({
      title: `${file.display} (uncaught error)`,
      text: `${errorText(file.uncaught, mapper).replace(/^error: /, 'error: (in promise) ')}\nThis error was not caught from a test and caused the test runner to fail on the referenced module.\nIt most likely originated from a dangling promise, event/timeout handler or top-level code.`,
    });
  }
  return failures;
}

export function summaryLine(s: TestSummary): string {
  const steps = (n: number) => (n > 0 ? ` (${n} step${n > 1 ? 's' : ''})` : '');
  const ok = s.failed === 0;
  let line = `${ok ? 'ok' : 'FAILED'} | ${s.passed} passed${steps(s.passedSteps)} | ${s.failed} failed${steps(s.failedSteps)}`;
  if (s.ignored > 0 || s.ignoredSteps > 0) line += ` | ${s.ignored} ignored${steps(s.ignoredSteps)}`;
  if (s.filteredOut > 0) line += ` | ${s.filteredOut} filtered out`;
  return `${line} (${formatDuration(s.durationMs)})`;
}

/** The ERRORS and FAILURES sections and the summary (stdout), and Deno's closing error line (stderr). */
export function renderEnd(results: { file: TestFileResult; mapper: StackMapper }[], summary: TestSummary): { stdout: string; stderr: string } {
  const failures = results.flatMap(({ file, mapper }) => failuresOf(file, mapper));
  let out = '';
  if (failures.length > 0) {
    out += '\n ERRORS \n\n';
    out += failures.map((f) => `${f.title}\n${f.text}\n`).join('\n');
    out += '\n FAILURES \n\n';
    out += failures.map((f) => `${f.title}\n`).join('');
  }
  out += `\n${summaryLine(summary)}\n\n`;
  const stderr = summary.failed > 0 ? 'error: Test failed\n' : summary.onlyUsed ? 'error: Test failed because the "only" option was used\n' : '';
  return { stdout: out, stderr };
}
