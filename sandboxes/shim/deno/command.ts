/**
 * `new Deno.Command(cmd, options).output()`. The host runs it through the subprocess
 * runner: only the given environment, a wall limit, an output cap, and a kill of the
 * whole process group on timeout.
 */
import { callAsync } from '../host.ts';
import { base64ToBytes, bytesToBase64 } from '../web/base64.ts';
import { TextEncoder } from '../web/text-encoding.ts';

export interface CommandOptions {
  args?: string[];
  cwd?: string | URL;
  env?: Record<string, string>;
  clearEnv?: boolean;
  stdin?: 'null' | 'inherit' | 'piped';
  stdout?: 'piped' | 'null' | 'inherit';
  stderr?: 'piped' | 'null' | 'inherit';
  /** Not Deno: bytes or text fed to stdin (Deno needs spawn() for that). */
  input?: string | Uint8Array;
}

interface RawOutput {
  code: number;
  signal: string | null;
  stdout: string;
  stderr: string;
}

export class Command {
  readonly #command: string;
  readonly #options: CommandOptions;

  constructor(command: string | URL, options: CommandOptions = {}) {
    this.#command = command instanceof URL ? decodeURIComponent(command.pathname) : String(command);
    this.#options = options;
  }

  async output(): Promise<{ code: number; success: boolean; signal: string | null; stdout: Uint8Array; stderr: Uint8Array }> {
    const o = this.#options;
    if (o.stdin === 'piped' && o.input === undefined) {
      throw new TypeError("Piped stdin is not supported for this function, use 'Deno.Command.spawn()' instead");
    }
    const input = o.input === undefined ? null : bytesToBase64(typeof o.input === 'string' ? new TextEncoder().encode(o.input) : o.input);
    const raw = await callAsync<RawOutput>('run.output', {
      command: this.#command,
      args: (o.args ?? []).map(String),
      cwd: o.cwd === undefined ? null : o.cwd instanceof URL ? decodeURIComponent(o.cwd.pathname) : String(o.cwd),
      env: o.env ?? {},
      clearEnv: Boolean(o.clearEnv),
      input,
      stdout: o.stdout ?? 'piped',
      stderr: o.stderr ?? 'piped',
    });
    const stdout = base64ToBytes(raw.stdout);
    const stderr = base64ToBytes(raw.stderr);
    return { code: raw.code, success: raw.code === 0, signal: raw.signal, stdout, stderr };
  }

  outputSync(): never {
    throw new TypeError('Deno.Command.outputSync is not supported in the sandbox; use output()');
  }

  spawn(): never {
    throw new TypeError('Deno.Command.spawn is not supported in the sandbox; use output()');
  }
}
