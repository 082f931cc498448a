/**
 * Typed access to what a gate-check plugin's isolate offers: the Deno subset the checks use
 * (reads of the snapshot under their `${draft}` grant) and the `gate.*` bindings
 * (kernel/contracts/gate-check.ts), each answered only when the check's manifest declares it
 * and its gate profile grants it. (This folder has no plugin.yaml: it is code the check
 * plugins import and esbuild bundles into each of them.)
 */
import type { BuiltEntry, ParsedPlugin, ParsedSkill, TestFileRun } from '../../kernel/contracts/gate-check.ts';

export interface DenoSubset {
  readTextFile(path: string): Promise<string>;
  readFile(path: string): Promise<Uint8Array>;
}

export interface GateBindingsInIsolate {
  manifest: {
    skill(text: string): Promise<ParsedSkill>;
    plugin(text: string): Promise<ParsedPlugin>;
    grant(manifest: Record<string, unknown>): Promise<{ problems: string[] }>;
  };
  build: { bundle(entry: string, role: 'module' | 'test'): Promise<BuiltEntry> };
  sandbox: { test(file: string, pass: number): Promise<TestFileRun> };
  deno: { available(): Promise<{ deno: string | null }>; test(file: string): Promise<TestFileRun> };
}

const g = globalThis as unknown as { Deno: DenoSubset; Runtimectl: { bindings: { gate: GateBindingsInIsolate } } };

export const deno: DenoSubset = g.Deno;
export const gate: GateBindingsInIsolate = g.Runtimectl.bindings.gate;

/** An error as a finding names it: its class, the kernel's code when a binding's refusal carries one (as data), its message. */
export function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return `${error.name}: ${typeof code === 'string' && code.startsWith('RTC_ERR_') ? `${code}: ` : ''}${error.message}`;
}
