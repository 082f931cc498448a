/**
 * `manifest.json` of an executor session (`<persona>/brain/sessions/<run-id>/`): one schema
 * for its two writers. The executor plugin writes it when its session ends
 * (plugins/executor-shared/session.ts builds an `ExecutorSessionManifestInput`, `import type`
 * from here, erased by esbuild); the kernel writes it when the plugin could not (the plugin
 * died, a crash left the session interrupted) and updates it (interrupted, tools called),
 * always through features/science-loop/executors/session-dir.ts, which parses what is there
 * with this schema first. A manifest that does not parse is kept beside as
 * `manifest.rejected.json` (nothing is lost) and replaced by the kernel's.
 */
import { z } from 'zod';
import { budgetDecisionSchema } from '../../../kernel/contracts/budget-policy.ts';
import { EXECUTOR_STATUSES, sessionSandboxSchema, usageSchema } from '../../../kernel/contracts/executor.ts';

export const EXECUTOR_SESSION_FORMAT = 'runtimectl.executor-session/1';
export const SESSION_MANIFEST_FILE = 'manifest.json';
export const REJECTED_MANIFEST_FILE = 'manifest.rejected.json';

const text = (max: number) => z.string().max(max);

/** Each persona tool call made while the session ran (the MCP server the harness was handed). */
const toolsSchema = z.object({
  server: text(200),
  offered: z.array(text(200)).max(1000).nullable(),
  called: z.array(text(200)).max(1000),
  calls: z
    .array(z.object({ tool: text(200), via: text(200), ok: z.boolean(), code: text(100).nullable().optional(), event_seq: z.number().int().nullable().optional() }))
    .max(10_000),
});

export const executorSessionManifestSchema = z
  .object({
    format: z.literal(EXECUTOR_SESSION_FORMAT),
    run_id: text(200),
    /** set when the kernel wrote it (the plugin ended before writing one) */
    written_by: text(200).optional(),
    persona_id: text(200).optional(),
    runtime: text(200).optional(),
    phase: text(200).optional(),
    executor: text(200),
    command: text(4096).nullable().optional(),
    args: z.array(text(65_536)).max(4096).optional(),
    prompt_via: z.enum(['stdin']).nullable().optional(),
    prompt_sha256: text(80).optional(),
    cwd: text(4096).optional(),
    provider_home: text(4096).optional(),
    os_sandbox: sessionSandboxSchema.optional(),
    status: z.enum(EXECUTOR_STATUSES),
    reason: text(65_536).nullable().optional(),
    exit_code: z.number().int().nullable().optional(),
    usage: usageSchema.nullable().optional(),
    limits: z.object({ wall_seconds: z.number(), max_tokens_per_session: z.number().nullable() }).optional(),
    work: z.array(z.object({ kind: text(40), key: text(400), title: text(4096) })).max(1000).optional(),
    budget_decision: budgetDecisionSchema.nullable().optional(),
    files: z.array(text(200)).max(50).optional(),
    /** entries found where the session's files go (a link, a folder) that the plugin removed before writing: the session planted them */
    replaced: z.array(text(400)).max(50).optional(),
    interrupted_by: text(200).optional(),
    tools: toolsSchema.optional(),
    /** why a manifest that was there did not parse (it is kept as manifest.rejected.json) */
    rejected_manifest: text(1000).optional(),
    /** what this executor adds of its own (the orchestra executor's ledger) */
    extra: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export type ExecutorSessionManifest = z.output<typeof executorSessionManifestSchema>;
/** What a writer hands over (before defaults are filled in). */
export type ExecutorSessionManifestInput = z.input<typeof executorSessionManifestSchema>;
