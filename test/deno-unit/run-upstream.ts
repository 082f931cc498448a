/**
 * Runs Deno's own unit tests (tests/unit of denoland/deno) for the areas the sandbox
 * implements, through `sandbox test`, and prints the pass rate per area. The upstream files
 * are not part of this repository: point DENO_UPSTREAM_DIR (or the first argument) at a
 * folder holding them (tests/unit/*.ts, and tests/testdata/ for the fixtures some read).
 * Each file runs from a temporary copy beside this repository's own test_util.ts (our
 * rewrite of the helpers those tests import), with -A as Deno's CI runs them.
 *
 *   node --no-node-snapshot --import tsx test/deno-unit/run-upstream.ts [DIR] [--json]
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createTestRunner } from '../../features/sandbox-run/runner/test-runner.ts';

const DENO = path.resolve(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'deno');

/**
 * The same file under the real Deno: per-test results read from its report lines. A run that
 * reports no test at all (killed at the time limit on a loaded machine, or crashed) is run
 * once more, and said on stderr if it still reports nothing: otherwise the file would drop
 * out of the measure without a word.
 */
function underDeno(work: string, file: string): { passed: number; failed: number; ignored: number; passedNames: string[] } {
  const first = underDenoOnce(work, file);
  if (first.passed + first.failed + first.ignored > 0) return first;
  const second = underDenoOnce(work, file);
  if (second.passed + second.failed + second.ignored === 0) console.error(`run-upstream: the real deno reported no test of ${file} (twice); it counts as 0 under Deno`);
  return second;
}

function underDenoOnce(work: string, file: string): { passed: number; failed: number; ignored: number; passedNames: string[] } {
  const run = spawnSync(DENO, ['test', '-A', '--no-check', '--no-config', '--no-prompt', path.join('tests', 'unit', file)], {
    cwd: work, encoding: 'utf8', timeout: 300_000, env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', DENO_DIR: path.join(work, '.deno') },
  });
  const counts = { passed: 0, failed: 0, ignored: 0, passedNames: [] as string[] };
  for (const line of (run.stdout ?? '').split('\n')) {
    const ok = /^(\S.*) \.\.\. ok \(/.exec(line);
    if (ok) {
      counts.passed++;
      counts.passedNames.push(ok[1]!);
    } else if (/^\S.* \.\.\. FAILED/.test(line)) counts.failed++;
    else if (/^\S.* \.\.\. ignored/.test(line)) counts.ignored++;
  }
  return counts;
}

/** Area of the supported surface → the upstream test files that check it. */
export const UPSTREAM_AREAS: Record<string, string[]> = {
  'file system': ['read_text_file_test.ts', 'read_file_test.ts', 'write_file_test.ts', 'write_text_file_test.ts', 'copy_file_test.ts', 'rename_test.ts', 'make_temp_test.ts', 'chmod_test.ts', 'mkdir_test.ts', 'remove_test.ts', 'stat_test.ts', 'read_dir_test.ts', 'real_path_test.ts', 'truncate_test.ts', 'symlink_test.ts', 'read_link_test.ts', 'link_test.ts', 'utime_test.ts', 'files_test.ts'],
  subprocess: ['command_test.ts'],
  permissions: ['permissions_test.ts'],
  'web: events and abort': ['abort_controller_test.ts', 'event_target_test.ts', 'event_test.ts', 'custom_event_test.ts'],
  'web: streams and encoding': ['streams_test.ts', 'text_encoding_test.ts'],
  'web: fetch classes': ['headers_test.ts', 'request_test.ts', 'response_test.ts', 'blob_test.ts', 'body_test.ts'],
  'web: URL': ['url_test.ts', 'url_search_params_test.ts'],
  'web: DOMException': ['dom_exception_test.ts', 'quota_exceeded_error_test.ts'],
  'web: performance': ['performance_test.ts'],
  'web: timers': ['timers_test.ts'],
  'web: crypto': ['webcrypto_test.ts', 'get_random_values_test.ts'],
  'built-ins': ['esnext_test.ts', 'structured_clone_test.ts'],
};

/** Imports of Deno's standard library become our test_util.ts. */
function rewriteImports(source: string): string {
  return source.replace(/from\s+"(@std\/[^"]+|jsr:@std\/[^"]+)"/g, 'from "./test_util.ts"').replace(/from\s+'(@std\/[^']+|jsr:@std\/[^']+)'/g, "from './test_util.ts'");
}

interface AreaResult {
  area: string;
  file: string;
  /** the same file under the real Deno (the oracle's own score: the upstream files may be newer or older than it) */
  deno: { passed: number; failed: number; ignored: number; passedNames: string[] };
  /** of the tests that pass under the real Deno, how many pass in the sandbox too (the measure that counts) */
  passedOfDeno: number;
  /** tests that pass under the real Deno and fail (or do not run) in the sandbox */
  missing: string[];
  passed: number;
  failed: number;
  ignored: number;
  loadError: string | null;
  failures: string[];
}

export async function runUpstream(upstream: string): Promise<AreaResult[]> {
  const unit = path.join(upstream, 'tests', 'unit');
  if (!existsSync(unit)) throw new Error(`no tests/unit in ${upstream}: fetch the upstream files there first`);
  const work = mkdtempSync(path.join(os.tmpdir(), 'rtc-deno-unit-'));
  const dir = path.join(work, 'tests', 'unit');
  mkdirSync(dir, { recursive: true });
  if (existsSync(path.join(upstream, 'tests', 'testdata'))) cpSync(path.join(upstream, 'tests', 'testdata'), path.join(work, 'tests', 'testdata'), { recursive: true });
  writeFileSync(path.join(dir, 'test_util.ts'), readFileSync(path.join(import.meta.dirname, 'sandbox', 'test_util.ts')));
  const runner = await createTestRunner();
  const results: AreaResult[] = [];
  try {
    for (const [area, files] of Object.entries(UPSTREAM_AREAS)) {
      for (const file of files) {
        const source = path.join(unit, file);
        if (!existsSync(source)) continue;
        writeFileSync(path.join(dir, file), rewriteImports(readFileSync(source, 'utf8')));
        // Deno's unit tests run from the repository root with every permission.
        const run = await runner.run({ files: [path.join('tests', 'unit', file)], permissionFlags: ['-A'], cwd: work, env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', TMPDIR: os.tmpdir() }, limits: { wallMs: 60_000, cpuMs: 20_000 } });
        const tests = run.files.flatMap((f) => f.tests);
        const loadError = run.files.find((f) => f.uncaught)?.uncaught?.message ?? (run.files.length === 0 ? run.stderr.trim() : null);
        const deno = underDeno(work, file);
        const passedHere = new Set(tests.filter((t) => t.status === 'ok').map((t) => t.name));
        const missing = deno.passedNames.filter((name) => !passedHere.has(name));
        results.push({
          area,
          file,
          deno,
          passedOfDeno: deno.passedNames.length - missing.length,
          missing,
          passed: tests.filter((t) => t.status === 'ok').length,
          failed: tests.filter((t) => t.status === 'failed').length,
          ignored: tests.filter((t) => t.status === 'ignored').length,
          loadError,
          failures: tests.filter((t) => t.status === 'failed').map((t) => `${t.name}: ${(t.error?.message ?? 'a step failed').split('\n')[0]}`),
        });
      }
    }
  } finally {
    await runner.close();
    rmSync(work, { recursive: true, force: true });
  }
  return results;
}

if (import.meta.filename === process.argv[1] || process.argv[1]?.endsWith('run-upstream.ts')) {
  const args = process.argv.slice(2);
  const upstream = args.find((a) => !a.startsWith('--')) ?? process.env.DENO_UPSTREAM_DIR ?? '/tmp/deno-upstream';
  const results = await runUpstream(path.resolve(upstream));
  if (args.includes('--json')) console.log(JSON.stringify(results, null, 2));
  else {
    const byArea = new Map<string, AreaResult[]>();
    for (const r of results) byArea.set(r.area, [...(byArea.get(r.area) ?? []), r]);
    // The measure: of the tests that pass under the real Deno, the share that passes in the sandbox too.
    console.log('| file | pass under real Deno | of those, pass in the sandbox | share |');
    console.log('|---|---|---|---|');
    let denoTotal = 0;
    let bothTotal = 0;
    for (const r of results) {
      denoTotal += r.deno.passedNames.length;
      bothTotal += r.passedOfDeno;
      const share = r.deno.passedNames.length === 0 ? '–' : `${Math.round((100 * r.passedOfDeno) / r.deno.passedNames.length)}%`;
      console.log(`| ${r.file} | ${r.deno.passedNames.length} | ${r.passedOfDeno} | ${share} |`);
    }
    console.log(`| **all ${results.length} files** | **${denoTotal}** | **${bothTotal}** | **${denoTotal === 0 ? '–' : `${((100 * bothTotal) / denoTotal).toFixed(1)}%`}** |`);
    console.log('');
    console.log('| area | upstream files | passed | failed | ignored | pass rate | real deno 2.9.6 on the same files |');
    console.log('|---|---|---|---|---|---|---|');
    for (const [area, rs] of byArea) {
      const passed = rs.reduce((n, r) => n + r.passed, 0);
      const failed = rs.reduce((n, r) => n + r.failed, 0) + rs.filter((r) => r.loadError && r.passed + r.failed === 0).length;
      const ignored = rs.reduce((n, r) => n + r.ignored, 0);
      const rate = passed + failed === 0 ? '–' : `${Math.round((100 * passed) / (passed + failed))}%`;
      const dp = rs.reduce((n, r) => n + r.deno.passed, 0);
      const df = rs.reduce((n, r) => n + r.deno.failed, 0);
      const drate = dp + df === 0 ? '–' : `${Math.round((100 * dp) / (dp + df))}% (${dp}/${dp + df})`;
      console.log(`| ${area} | ${rs.map((r) => r.file).join(', ')} | ${passed} | ${failed} | ${ignored} | ${rate} | ${drate} |`);
    }
    for (const r of results) {
      if (r.loadError) console.log(`\n${r.file}: did not load: ${r.loadError}`);
      for (const f of r.failures) console.log(`  ${r.file}: ${f}`);
      for (const name of r.missing) if (!r.failures.some((f) => f.startsWith(`${name}: `))) console.log(`  ${r.file}: ${name}: passes under deno, did not pass here`);
    }
  }
}
