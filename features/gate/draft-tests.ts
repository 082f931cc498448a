/**
 * How the gate runs one test file of a draft: with the kernel's one `deno test` runner
 * (`features/sandbox-run/runner/test-runner.ts`, the engine of `runtimectl sandbox test`; one runner, not
 * two). The gate never runs tests its own way: it hands the runner the file, the draft's
 * flags, its scratch folder as `Deno.args[0]` and the profile's write quota, and reads
 * each test's result back. The file is bundled with `import.meta.main` false, as `deno test`
 * loads it.
 */
import type { AuditEvent } from '../../kernel/broker/op.ts';
import type { TestCaseResult } from '../../kernel/contracts/gate-check.ts';
import { LIMIT_CODES, type ErrorCode } from '../../kernel/errors.ts';
import type { ScriptRunRequest } from '../sandbox-run/runner/script-run-types.ts';
import { createTestRunner, type TestErrorInfo, type TestRunResult } from '../sandbox-run/runner/test-runner.ts';
import { errorHead } from '../sandbox-run/runner/test-report.ts';

/** What the gate needs of one run of one test file. */
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

/** The limit that ended a run, read from the runner's error record (its code is data, never parsed from the message). */
function limitOf(error: TestErrorInfo | null | undefined): ErrorCode | undefined {
  const code = error?.code as ErrorCode | undefined;
  return code !== undefined && LIMIT_CODES.has(code) ? code : undefined;
}

const CLIPPED = '\n[... the rest passed the output cap: not kept]\n';

/**
 * The test's output as the evidence keeps it: at most the sandbox's output cap. The module's
 * own output is already cut at the cap; the runner's report lines around it (the pre-test
 * output frame, the summary) could carry the whole past it.
 */
function clip(text: string, cap: number | undefined): string {
  if (cap === undefined || Buffer.byteLength(text) <= cap) return text;
  const head = Buffer.from(text).subarray(0, Math.max(0, cap - CLIPPED.length)).toString('utf8').replace(/\uFFFD$/, '');
  return `${head}${CLIPPED}`;
}

/**
 * What the gate keeps of one runner result: each test's result line, and the error that ended
 * the file: its uncaught error, or else the first test a limit ended (with the limit's code).
 */
export function outcomeOf(result: TestRunResult, outputCap: number | undefined): DraftTestOutcome {
  const file = result.files[0];
  const tests: TestCaseResult[] = (file?.tests ?? []).map((t) => ({
    name: t.name,
    result: t.status,
    ...(t.error ? { error: errorHead(t.error).split('\n')[0]! } : {}),
    duration_ms: Math.round(t.durationMs),
  }));
  const failure = file?.uncaught ?? file?.tests.find((t) => limitOf(t.error))?.error ?? null;
  const code = limitOf(failure);
  return {
    exitCode: result.exitCode,
    ok: result.ok,
    stdout: clip(result.stdout, outputCap),
    stderr: clip(result.stderr, outputCap),
    error: failure ? { name: failure.name, message: failure.message, ...(code ? { code } : {}) } : null,
    usage: {},
    tests,
  };
}

export async function createDraftTestRunner(cacheDir: string, audit: (event: AuditEvent) => void): Promise<DraftTestRunner> {
  const runner = await createTestRunner({ cacheDir, audit });
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
      return outcomeOf(result, request.limits?.outputBytes);
    },
    close: () => runner.close(),
  };
}
