/**
 * How the gate runs one test file of a draft: with the kernel's one `deno test` runner
 * (`kernel/run/test-runner.ts`, `createTestRunner` / `run` / `TestRunResult`, built on branch
 * `deno` as `runtimectl sandbox test`; one runner, not two). The gate never runs tests its
 * own way.
 *
 * TRANSITIONAL SEAM. That module is not on this branch yet: the deno branch cannot be merged
 * here without porting its new file ops onto the sandbox branch's path guard, which is that
 * integration's job (see the closing note). Until it lands, `testRunnerAvailable()` is false,
 * a test file runs as a plain script (`Deno.test` is then not a function, and the tests check
 * says the file registered nothing), and the gate tests that need Deno.test skip with that
 * reason. Once the module exists this file uses it as documented, with no other change; the
 * runner is asked for two things its documented request does not have yet: `args` (the
 * scratch folder as `Deno.args[0]`) and `writeQuota` (passed on to its broker context).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AuditEvent } from '../../kernel/broker/op.ts';
import type { TestCaseResult } from '../../kernel/contracts/gate-check.ts';
import { LIMIT_CODES, type ErrorCode } from '../../kernel/errors.ts';
import { createScriptRunner } from '../../kernel/run/script-runner.ts';
import type { ScriptRunRequest } from '../../kernel/run/script-run-types.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';

/** Where the kernel's `deno test` runner lives (branch deno). */
const TEST_RUNNER_MODULE = path.join(PROJECT_ROOT, 'kernel', 'run', 'test-runner.ts');

export function testRunnerAvailable(): boolean {
  return existsSync(TEST_RUNNER_MODULE);
}

/** What the gate needs of one run of one test file, whichever runner made it. */
export interface DraftTestOutcome {
  exitCode: number;
  ok: boolean;
  stdout: string;
  stderr: string;
  error: { name: string; message: string; code?: string } | null;
  usage: Record<string, number>;
  tests: TestCaseResult[];
}

export interface DraftTestRunner {
  run(request: ScriptRunRequest): Promise<DraftTestOutcome>;
  close(): Promise<void>;
}

/** The runner's documented API (kernel/run/test-runner.ts on branch deno), as far as the gate uses it. */
interface DocumentedTestRunner {
  run(request: {
    files: readonly string[];
    permissionFlags: readonly string[];
    cwd: string;
    env: Readonly<Record<string, string | undefined>>;
    profile?: string;
    limits?: ScriptRunRequest['limits'];
    args?: readonly string[];
    writeQuota?: ScriptRunRequest['writeQuota'];
  }): Promise<{
    ok: boolean;
    exitCode: number;
    stdout: string;
    stderr: string;
    files: { tests: { name: string; status: 'ok' | 'failed' | 'ignored'; durationMs: number; error: { name: string; message: string } | null }[]; uncaught: { name: string; message: string } | null }[];
  }>;
  close(): Promise<void>;
}

/** A limit code named in an error's message (`RTC_ERR_SANDBOX_CPU: ...`), as the runner reports it. */
function limitIn(message: string): ErrorCode | undefined {
  const code = /\b(RTC_ERR_[A-Z_]+)\b/.exec(message)?.[1] as ErrorCode | undefined;
  return code !== undefined && LIMIT_CODES.has(code) ? code : undefined;
}

async function denoTestRunner(cacheDir: string, audit: (event: AuditEvent) => void): Promise<DraftTestRunner> {
  // A computed specifier: the module may not exist on this branch (see above).
  const specifier = TEST_RUNNER_MODULE;
  const mod = (await import(specifier)) as { createTestRunner(o: { cacheDir: string; audit: (e: AuditEvent) => void }): Promise<DocumentedTestRunner> };
  const runner = await mod.createTestRunner({ cacheDir, audit });
  return {
    async run(request) {
      const result = await runner.run({
        files: [request.file],
        permissionFlags: request.permissionFlags,
        cwd: request.cwd,
        env: request.env,
        ...(request.profile ? { profile: request.profile } : {}),
        ...(request.limits ? { limits: request.limits } : {}),
        args: request.args,
        ...(request.writeQuota ? { writeQuota: request.writeQuota } : {}),
      });
      const file = result.files[0];
      const tests: TestCaseResult[] = (file?.tests ?? []).map((t) => ({
        name: t.name,
        result: t.status,
        ...(t.error ? { error: `${t.error.name}: ${t.error.message}`.split('\n')[0]! } : {}),
        duration_ms: Math.round(t.durationMs),
      }));
      const failure = file?.uncaught ?? file?.tests.find((t) => t.error && limitIn(t.error.message))?.error ?? null;
      const code = failure ? limitIn(failure.message) : undefined;
      return {
        exitCode: result.exitCode,
        ok: result.ok,
        stdout: result.stdout,
        stderr: result.stderr,
        error: failure ? { name: failure.name, message: failure.message.replace(/^RTC_ERR_[A-Z_]+: /, ''), ...(code ? { code } : {}) } : null,
        usage: {},
        tests,
      };
    },
    close: () => runner.close(),
  };
}

/** Until the deno test runner is here: the file runs as a script (no Deno.test, see above). */
async function scriptRunner(cacheDir: string, audit: (event: AuditEvent) => void): Promise<DraftTestRunner> {
  const runner = await createScriptRunner({ cacheDir, poolSize: 1, audit });
  return {
    async run(request) {
      const r = await runner.run(request);
      return { exitCode: r.exitCode, ok: r.ok, stdout: r.stdout, stderr: r.stderr, error: r.error, usage: r.usage, tests: [] };
    },
    close: () => runner.close(),
  };
}

export function createDraftTestRunner(cacheDir: string, audit: (event: AuditEvent) => void): Promise<DraftTestRunner> {
  return testRunnerAvailable() ? denoTestRunner(cacheDir, audit) : scriptRunner(cacheDir, audit);
}
