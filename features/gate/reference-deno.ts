/**
 * The real Deno, as an independent reference for the draft's tests (the `gate.deno`
 * binding). Where it is: `RUNTIMECTL_DENO` (a path, or `none` to say this host has no
 * Deno), else the project's own `node_modules/.bin/deno`, else `deno` on PATH.
 *
 * A test file runs as `deno test` runs it, with the same permission flags, cwd and
 * argument as in the sandbox (`-- <scratch>`), in a subprocess held by Deno's own
 * permission system, an empty environment, a wall limit and an output cap, its process
 * group killed on either. Each Deno.test's result comes from Deno's JUnit report.
 */
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestCaseResult, TestFileRun } from '../../kernel/contracts/gate-check.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { resolveExecutable, runCommand } from '../../sandboxes/subprocess/run-command.ts';
import { flagsFor, scratchFor } from './sandbox-runs.ts';
import type { GateSession } from './session.ts';

/** Deno's own start-up needs room the isolate's heap limit does not give it. */
const DENO_MIN_HEAP_MB = 64;
/** Start-up and transpiling, on top of the run's wall limit. */
const DENO_START_MS = 5000;

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findDeno(env: Readonly<Record<string, string | undefined>>, cwd: string): string | null {
  const chosen = env.RUNTIMECTL_DENO;
  if (chosen !== undefined) {
    if (chosen === '' || chosen === 'none') return null;
    const file = path.resolve(cwd, chosen);
    return existsSync(file) && executable(file) ? file : null;
  }
  const local = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'deno');
  if (existsSync(local) && executable(local)) return local;
  return resolveExecutable('deno', env.PATH ?? '', cwd) ?? null;
}

const ENTITIES: Record<string, string> = { '&quot;': '"', '&apos;': "'", '&lt;': '<', '&gt;': '>', '&amp;': '&' };
function unescapeXml(text: string): string {
  return text.replace(/&(quot|apos|lt|gt|amp|#\d+|#x[0-9a-fA-F]+);/g, (whole) => {
    if (whole.startsWith('&#x')) return String.fromCodePoint(parseInt(whole.slice(3, -1), 16));
    if (whole.startsWith('&#')) return String.fromCodePoint(parseInt(whole.slice(2, -1), 10));
    return ENTITIES[whole] ?? whole;
  });
}

/** Each `<testcase>` of Deno's JUnit report, in order: its name, result and failure text. */
export function parseJunit(xml: string): TestCaseResult[] {
  const results: TestCaseResult[] = [];
  const testcase = /<testcase\s+name="([^"]*)"[^>]*?time="([\d.]+)"[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g;
  for (const m of xml.matchAll(testcase)) {
    const body = m[3] ?? '';
    const failure = /<failure[^>]*>([\s\S]*?)<\/failure>/.exec(body);
    const result: TestCaseResult['result'] = /<skipped\s*\/>/.test(body) ? 'ignored' : failure || /<failure/.test(body) ? 'failed' : 'ok';
    results.push({ name: unescapeXml(m[1]!), result, ...(failure ? { error: unescapeXml(failure[1]!).split('\n')[0] } : {}), duration_ms: Math.round(Number(m[2]) * 1000) });
  }
  return results;
}

export async function runTestInDeno(session: GateSession, test: string): Promise<TestFileRun> {
  const scratch = scratchFor(session, 'deno', test);
  const flags = flagsFor(session, scratch);
  const { limits } = session.gate;
  const base: Omit<TestFileRun, 'exit_code' | 'ok' | 'error' | 'ended_on_limit' | 'usage' | 'stdout' | 'stderr'> = { test, pass: 'deno', scratch: path.relative(session.dirs.out, scratch), permission_flags: flags, tests: [], audit: [], audit_total: 0, denied: 0, writes: { bytes: 0, entries: 0, max_bytes: 0, max_entries: 0, refused: 0 } };
  if (session.deno === null) {
    return { ...base, exit_code: 1, ok: false, error: null, ended_on_limit: false, usage: {}, stdout: '', stderr: '', skipped: 'no Deno on this host' };
  }
  const denoDir = mkdtempSync(path.join(os.tmpdir(), 'rtc-gate-deno-'));
  try {
    const report = path.join(denoDir, 'report.xml');
    const args = [
      'test', '--no-prompt', '--no-config', '--no-lock', '--no-remote', '--no-npm',
      `--v8-flags=--max-old-space-size=${Math.max(DENO_MIN_HEAP_MB, limits.memoryMb)}`,
      `--junit-path=${report}`,
      ...flags,
      path.join(session.dirs.draft, test), '--', scratch,
    ];
    const started = performance.now();
    const result = await runCommand({
      command: session.deno,
      args,
      cwd: session.dirs.draft,
      env: { DENO_DIR: denoDir, HOME: denoDir, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
      searchPath: '',
      input: null,
      wallMs: limits.wallMs + DENO_START_MS,
      outputBytes: limits.outputBytes,
    });
    let tests: TestCaseResult[] = [];
    try {
      tests = parseJunit(readFileSync(report, 'utf8'));
    } catch {
      // No report: Deno did not get as far as running the file (a syntax error, a kill).
    }
    const code = result.code ?? 1;
    return {
      ...base,
      command: [session.deno, ...args],
      exit_code: code,
      ok: code === 0 && !result.killed,
      error: result.killed ? { name: 'Error', message: `Deno run killed (${result.killed})` } : null,
      ended_on_limit: result.killed !== null && result.killed !== undefined,
      usage: { wallMs: Math.round(performance.now() - started) },
      stdout: result.stdout.toString('utf8'),
      stderr: result.stderr.toString('utf8'),
      tests,
    };
  } finally {
    rmSync(denoDir, { recursive: true, force: true });
  }
}
