/**
 * The executor contract as plugins see it: the types come from the kernel's published
 * contract (kernel/contracts/executor.ts), the one copy the kernel checks every answer with.
 * `import type` is erased by esbuild, so nothing of zod reaches the isolate.
 */
import type { ExecutorAnswer, ExecutorInput, ExecutorStatus, McpServerSpec, ProviderUsage, WorkItem } from '../../kernel/contracts/executor.ts';

export type { ExecutorInput, ExecutorStatus, McpServerSpec, WorkItem };
/** What `run` returns (fields with defaults may be left out). */
export type ExecutorResult = ExecutorAnswer;
/** Token figures, as the kernel reads them. */
export type Usage = ProviderUsage;

/** A config value as a list of strings (anything else is ignored). */
export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}
