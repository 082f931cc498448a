/**
 * Runs one Deno-style script in the sandbox, the engine of `runtimectl sandbox run`:
 * bundle (cached), grant = flags ∩ profile ceiling, then the profile's tier: an in-process
 * isolate, or an isolate inside a warm sandbox host process. One runner can serve many
 * runs and keeps its process pool warm between them.
 */
import { defaultCacheDir } from '../../../sandboxes/loader/bundle.ts';
import { mapUncaughtReport } from '../../../sandboxes/loader/stack-remap.ts';
import { isKernelError, type KernelError } from '../../../kernel/errors.ts';
import type { AuditEvent } from '../../../kernel/broker/op.ts';
import type { CapabilityBroker } from '../../../kernel/broker/broker.ts';
import type { Limits, SandboxProfile } from '../../../kernel/manifest/sandbox-profile.ts';
import { assertNodeFlags } from '../../../sandboxes/isolate/node-flags.ts';
import { IsolateRuntime, type CompiledSource, type RunOutcome, type Usage } from '../../../sandboxes/isolate/isolate-runtime.ts';
import { loadShim } from '../../../sandboxes/isolate/shim-source.ts';
import { ProcessPool } from '../../../sandboxes/pool/process-pool.ts';
import { prepareModule } from './prepare.ts';
import type { ScriptRunRequest, ScriptRunResult } from './script-run-types.ts';

export interface ScriptRunnerOptions {
  cacheDir?: string;
  /** sandbox host processes kept warm for the process tier */
  poolSize?: number;
  /** receives every capability decision */
  audit?: (event: AuditEvent) => void;
}

export class ScriptRunner {
  readonly cacheDir: string;
  readonly #shim: CompiledSource;
  readonly #options: ScriptRunnerOptions;
  #pool: ProcessPool | undefined;

  constructor(shim: CompiledSource, options: ScriptRunnerOptions) {
    this.#shim = shim;
    this.#options = options;
    this.cacheDir = options.cacheDir ?? defaultCacheDir();
  }

  #poolFor(): ProcessPool {
    this.#pool ??= new ProcessPool({ size: this.#options.poolSize ?? 1, cacheDir: this.cacheDir, shim: this.#shim });
    return this.#pool;
  }

  async run(request: ScriptRunRequest): Promise<ScriptRunResult> {
    const started = performance.now();
    const stdout: string[] = [];
    const stderr: string[] = [];
    let broker: CapabilityBroker | undefined;
    const finish = (outcome: RunOutcome, usage: Usage): ScriptRunResult => {
      const writes = broker?.context.scope.writes?.usage;
      return {
        ok: outcome.exitCode === 0,
        exitCode: outcome.exitCode,
        stdout: stdout.join(''),
        stderr: stderr.join(''),
        error: outcome.error,
        usage: { cpuMs: round(usage.cpuMs), wallMs: round(usage.wallMs || performance.now() - started), heapBytes: usage.heapBytes },
        ...(request.writeQuota ? { writes: writes ?? { bytes: 0, entries: 0, refused: 0 } } : {}),
      };
    };
    const failed = (error: KernelError): ScriptRunResult => {
      stderr.push(`error: ${error.code}: ${error.message}\n`);
      return finish({ exitCode: 1, error: { name: error.name, message: error.message, code: error.code } }, { cpuMs: 0, wallMs: performance.now() - started, heapBytes: 0 });
    };
    let prepared;
    try {
      prepared = await prepareModule({ ...request, cacheDir: this.cacheDir, audit: request.audit ?? this.#options.audit, warn: (line) => stderr.push(line) });
    } catch (error) {
      if (isKernelError(error)) return failed(error);
      throw error;
    }
    request.onBundle?.(prepared.bundle);
    const { profile, limits, source, mapper } = prepared;
    broker = prepared.broker;
    // The uncaught-error report is one write: its frames are mapped to the script's own lines.
    const onOutput = (fd: 1 | 2 | 3, text: string): void => {
      if (fd !== 3) (fd === 1 ? stdout : stderr).push(fd === 2 && text.startsWith('error: Uncaught') ? mapUncaughtReport(mapper, text) : text);
    };

    try {
      if (profile.tier === 'in-process') {
        return await this.#runInProcess(source, profile, limits, request, prepared.broker, onOutput, finish);
      }
      const { outcome, usage } = await this.#poolFor().run({ source, limits, webAssembly: profile.webAssembly, args: request.args, rssCapMb: profile.rssCapMb ?? 512, ops: broker, onOutput });
      if (outcome.limit && !stderr.join('').includes(outcome.limit.code)) stderr.push(`error: ${outcome.limit.code}: ${outcome.limit.message}\n`);
      return finish(outcome, usage);
    } finally {
      // Nothing the run started outlives it: fetches in flight are aborted, subprocess groups
      // killed, and the files, children and fetch bodies the script left open are closed.
      broker.endScope();
      broker.close();
    }
  }

  async #runInProcess(
    source: CompiledSource,
    profile: SandboxProfile,
    limits: Limits,
    request: ScriptRunRequest,
    broker: CapabilityBroker,
    onOutput: (fd: 1 | 2, text: string) => void,
    finish: (outcome: RunOutcome, usage: Usage) => ScriptRunResult,
  ): Promise<ScriptRunResult> {
    let runtime: IsolateRuntime | undefined;
    try {
      runtime = IsolateRuntime.create(this.#shim, { limits, webAssembly: profile.webAssembly, args: request.args, syncMode: 'callback', ops: broker, onOutput, surface: 'script' });
      const outcome = await runtime.runMain(source);
      if (outcome.limit) onOutput(2, `error: ${outcome.limit.code}: ${outcome.limit.message}\n`);
      return finish(outcome, runtime.usage());
    } catch (error) {
      if (isKernelError(error)) {
        onOutput(2, `error: ${error.code}: ${error.message}\n`);
        return finish({ exitCode: 1, error: { name: error.name, message: error.message, code: error.code } }, runtime?.usage() ?? { cpuMs: 0, wallMs: 0, heapBytes: 0 });
      }
      throw error;
    } finally {
      runtime?.dispose();
    }
  }

  async close(): Promise<void> {
    await this.#pool?.close();
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

export async function createScriptRunner(options: ScriptRunnerOptions = {}): Promise<ScriptRunner> {
  assertNodeFlags();
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const shim = await loadShim(cacheDir);
  return new ScriptRunner(shim, { ...options, cacheDir });
}
