/**
 * The gate-check contract (`kind: gate-check`): `check(input) → { status, reason, output,
 * not_evaluated }`. A gate profile (policies/gates/*.yaml) lists check plugins in order; the
 * gate snapshots the draft, then calls each check's `check` in its own isolate with the
 * snapshot and the results of the earlier checks the plugin's manifest says it reads
 * (`gate_check.reads`). A check reaches the draft's files only through its grant (a read of
 * `${draft}`), and what the host must do for it (bundle the draft, run it in the gate's
 * sandbox, run the real Deno, parse with the kernel's own schemas) only through the narrow
 * `gate.*` bindings its manifest declares and the profile grants.
 *
 * Statuses: `passed` (evaluated, found nothing wrong), `failed` (evaluated, found a fault:
 * the verdict is rejected), `not-applicable` (nothing of this kind to evaluate: a draft with
 * no code has nothing to test; never a pass, always listed among what was not evaluated),
 * `unavailable` (could not evaluate: a tool missing, an earlier check left nothing).
 * Plugins import these types; the kernel parses every answer with these schemas.
 */
import { z } from 'zod';

export const GATE_CHECK_STATUSES = ['passed', 'failed', 'not-applicable', 'unavailable'] as const;
export type GateCheckStatus = (typeof GATE_CHECK_STATUSES)[number];

export const GATE_CHECK_EXPORTS = ['check'] as const;

/** A check's name is its plugin id without the `gate-check.` prefix. */
export const GATE_CHECK_ID_PREFIX = 'gate-check.';
export const checkNameSchema = z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, 'lowercase letters, digits and dashes');

/** The `gate_check:` section of a gate-check plugin's manifest. */
export const gateCheckSectionSchema = z.strictObject({
  reads: z.array(checkNameSchema).max(32).default([]).describe('earlier checks whose results this check needs: a profile listing this check lists them before it'),
  reads_optional: z
    .array(checkNameSchema)
    .max(32)
    .default([])
    .describe('earlier checks this check also reads when the profile has them (then they come before it)'),
});
export type GateCheckSection = z.output<typeof gateCheckSectionSchema>;

const snapshotFileSchema = z.object({
  path: z.string().describe('relative to the snapshot root'),
  type: z.enum(['file', 'symlink']),
  bytes: z.number().int().min(0),
  sha256: z.string().describe('hex digest of the content (of the link text for a symlink)'),
  target: z.string().optional().describe('a symlink\'s target, as recorded'),
});

/** What `check` is called with. */
export const gateCheckInputSchema = z.object({
  check: checkNameSchema.describe('this check\'s name (its plugin id without `gate-check.`)'),
  draft: z.object({
    name: z.string().describe('the draft folder\'s name (= its SKILL.md name when valid)'),
    root: z.string().describe('absolute path of the snapshot every check reads (`${draft}` in a check\'s manifest)'),
    digest: z.string().describe('the snapshot\'s digest over every path, type and content'),
    files: z.array(snapshotFileSchema).describe('every entry the snapshot holds'),
    problems: z.array(z.object({ path: z.string(), problem: z.string(), detail: z.string() })).describe('what the snapshot could not copy, and why'),
  }),
  gate: z.object({
    profile: z.string().describe('the gate profile\'s name'),
    sandbox: z.object({ name: z.string(), tier: z.enum(['in-process', 'process']) }).describe('the sandbox profile the draft\'s code runs under'),
    ceiling: z.record(z.string(), z.unknown()).describe('the most a draft\'s plugin.yaml may ask for; its tests run with exactly this'),
    bindings: z.array(z.string()).describe('bindings a draft may declare'),
    limits: z.record(z.string(), z.number()).describe('limits of each run of the draft\'s code'),
    draft: z.record(z.string(), z.number()).describe('bounds on the draft itself (max_files, max_tests, max_scratch_bytes, ...)'),
  }),
  earlier: z
    .record(z.string(), z.object({ status: z.enum(GATE_CHECK_STATUSES), reason: z.string(), output: z.unknown() }))
    .describe('results of the earlier checks this one reads, by name (absent: not in the profile)'),
});
export type GateCheckInput = z.infer<typeof gateCheckInputSchema>;

/** Longest reason and not-evaluated line the evidence keeps (cut with an ellipsis past it). */
const MAX_REASON = 4000;
const cut = (max: number) => z.string().min(1).transform((s) => (s.length > max ? `${s.slice(0, max - 1)}…` : s));

/** What `check` returns. */
export const gateCheckResultSchema = z.strictObject({
  status: z.enum(GATE_CHECK_STATUSES).describe('failed rejects the draft; not-applicable and unavailable are never a pass'),
  reason: cut(MAX_REASON).describe('one line: why it passed, failed, did not apply or could not run; a failure names each finding'),
  output: z.unknown().describe('the raw evidence (any JSON), written to checks/<nn>-<name>.json'),
  not_evaluated: z.array(cut(1000)).max(100).default([]).describe('what this check looked at but cannot vouch for: published as limitations of the verdict'),
});
export type GateCheckResult = z.output<typeof gateCheckResultSchema>;

/** The bindings a gate check may declare (each also granted per check by the gate profile). */
export const GATE_BINDINGS = ['gate.manifest', 'gate.build', 'gate.sandbox', 'gate.deno'] as const;
export type GateBindingName = (typeof GATE_BINDINGS)[number];

/** A SKILL.md as the skill catalog's parser reads it. */
export type ParsedSkill =
  | { ok: true; frontmatter: Record<string, unknown>; body_lines: number; warnings: string[]; digest: string }
  | { ok: false; field: string; reason: string };

/** A plugin.yaml as the kernel's manifest schema reads it. */
export type ParsedPlugin = { ok: true; manifest: Record<string, unknown> } | { ok: false; code: string; reason: string };

/** One bundle the build made (or why it could not). */
export interface BuiltEntry {
  /** path relative to the draft */
  entry: string;
  role: 'module' | 'test';
  bundle?: { digest: string; size: number; inputs: Record<string, string> };
  error?: string;
}

/** One Deno.test registration and what became of it (`deno test` semantics). */
export interface TestCaseResult {
  name: string;
  result: 'ok' | 'failed' | 'ignored';
  /** the thrown error, as Deno prints it, for a failed test */
  error?: string;
  duration_ms?: number;
}

/** One run of one test file. */
export interface TestFileRun {
  test: string;
  /** `pass-1`, `pass-2` in the sandbox; `deno` under the real Deno */
  pass: string;
  scratch: string;
  permission_flags: string[];
  exit_code: number;
  ok: boolean;
  /** a limit or the runner's own failure: `{name, message, code?}` */
  error: { name: string; message: string; code?: string } | null;
  /** the run ended on a sandbox limit (CPU, wall, memory, output, transfer, a crashed host) */
  ended_on_limit: boolean;
  usage: Record<string, number>;
  stdout: string;
  stderr: string;
  /** each Deno.test of the file, in registration order (empty when the file did not load) */
  tests: TestCaseResult[];
  /** capability decisions the run caused (capped), and how many there were */
  audit: { op: string; permission: string; value: string | null; decision: 'granted' | 'denied'; reason?: string }[];
  audit_total: number;
  denied: number;
  /** what the run wrote, counted by the broker's write quota */
  writes: { bytes: number; entries: number; max_bytes: number; max_entries: number; refused: number };
  /** set when the run never happened (no Deno on this host, ...) */
  skipped?: string;
  /** the command line of a run under the real Deno */
  command?: string[];
}

/** How the kernel serves the `gate.*` bindings for one check of one gate run. */
export interface GateBindings {
  manifest?: {
    skill(text: string): ParsedSkill;
    plugin(text: string): ParsedPlugin;
    /** what a draft's manifest asks beyond the gate: one line per problem */
    grant(manifest: Record<string, unknown>): { problems: string[] };
  };
  build?: { bundle(entry: string, role: 'module' | 'test'): Promise<BuiltEntry> };
  sandbox?: { test(file: string, pass: number): Promise<TestFileRun> };
  deno?: { available(): { deno: string | null }; test(file: string): Promise<TestFileRun> };
}
