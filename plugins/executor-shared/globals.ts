/**
 * Typed access to the sandbox's globals for the executor plugins: the Deno subset they use
 * and `Runtimectl.bindings`. (This folder has no plugin.yaml: it is code the executor
 * plugins import and esbuild bundles into each of them.)
 */

export interface CommandOutput {
  code: number;
  success: boolean;
  signal: string | null;
  stdout: Uint8Array;
  stderr: Uint8Array;
}

export interface CommandOptions {
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  stdout?: 'piped' | 'null';
  stderr?: 'piped' | 'null';
  /** the sandbox's own option: text fed to the child's stdin (the prompt, never argv) */
  input?: string;
}

export interface DenoSubset {
  readTextFile(path: string): Promise<string>;
  writeTextFile(path: string, data: string, options?: { append?: boolean; createNew?: boolean }): Promise<void>;
  mkdir(path: string, options?: { recursive?: boolean }): Promise<void>;
  lstat(path: string): Promise<{ isFile: boolean; isDirectory: boolean; isSymlink: boolean; nlink: number | null }>;
  remove(path: string, options?: { recursive?: boolean }): Promise<void>;
  env: { get(name: string): string | undefined };
  permissions: { querySync(desc: { name: 'net'; host: string }): { state: string } };
  Command: new (command: string, options?: CommandOptions) => { output(): Promise<CommandOutput> };
}

export interface TaskSummary {
  id: string;
  title: string;
  state: string;
}

export interface Bindings {
  ledger: {
    createTask(task: { title: string; description?: string }): Promise<TaskSummary>;
    list(filter?: { state?: string }): Promise<TaskSummary[]>;
  };
  events: { append(type: string, payload?: Record<string, unknown>): Promise<{ seq: number }> };
  memory: { read(): Promise<unknown> };
}

const g = globalThis as unknown as { Deno: DenoSubset; Runtimectl: { bindings: Bindings } };

export const deno: DenoSubset = g.Deno;
export const bindings: Bindings = g.Runtimectl.bindings;

/** The Deno error class name of a thrown value (`NotFound`, `TimedOut`, `NotCapable`, ...). */
export function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'Error';
}

/** A thrown value's message, after the kernel's code when a binding's refusal carries one (as data, `error.code`). */
export function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('RTC_ERR_') ? `${code}: ${error.message}` : error.message;
}
