/** Messages between the kernel and a sandbox host process (Node IPC, JSON). */
import type { Limits } from '../../kernel/manifest/sandbox-profile.ts';
import type { RunOutcome, Usage } from '../isolate/isolate-runtime.ts';

export interface WireSource {
  code: string;
  digest: string;
  filename: string;
  parts?: Readonly<Record<string, string>>;
  /** base64 V8 code cache that an earlier host process produced for this digest, sealed and checked by the kernel */
  cachedData?: string;
}

/** The first message, to host-loader.cjs: the host's own code, built by the kernel in memory. */
export interface BootMessage {
  t: 'boot';
  code: string;
  root: string;
}

export type ToHost =
  | { t: 'init'; shim: WireSource }
  | { t: 'run'; runId: number; source: WireSource; limits: Limits; webAssembly: boolean; args: readonly string[] }
  | { t: 'op-reply'; callId: number; answer: string }
  // resident plugin instances (the process tier's PluginInstance)
  | { t: 'load'; runId: number; source: WireSource; limits: Limits; webAssembly: boolean; mode?: 'run' | 'test'; args?: readonly string[] }
  | { t: 'call'; runId: number; callId: number; name: string; argsJson: string };

export interface WireError {
  name: string;
  message: string;
  code?: string;
  /** the script's own error behind a RTC_ERR_SANDBOX_SCRIPT (its name, message and stack, and the kernel code it carries) */
  script?: { name: string; message: string; stack: string; code?: string };
}

export type FromHost =
  | { t: 'ready' }
  | { t: 'op'; runId: number; callId: number; op: string; json: string; mode: 'sync' | 'async' }
  | { t: 'out'; runId: number; fd: 1 | 2 | 3; text: string }
  | { t: 'done'; runId: number; outcome: Omit<RunOutcome, 'limit'> & { limit?: { code: string; message: string } }; usage: Usage }
  | { t: 'loaded'; runId: number; exports?: string[]; error?: WireError }
  | { t: 'result'; runId: number; callId: number; json?: string; error?: WireError; cpuMs?: number }
  // a code cache V8 produced for a source the kernel sent (base64); the kernel seals and keeps it for other host processes
  | { t: 'code-cache'; digest: string; data: string };
