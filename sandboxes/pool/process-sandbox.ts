/**
 * A Sandbox (kernel/sandbox.ts) of the process tier: a RemoteRuntime, its module loaded in an
 * isolate resident in its own sandbox host process. Its CPU time is what the host reported
 * with each result; errors the module throws are located in its sources.
 */
import type { BuiltCode, Sandbox } from '../../kernel/sandbox.ts';
import type { RemoteRuntime } from './remote-runtime.ts';

export class ProcessSandbox implements Sandbox {
  readonly #runtime: RemoteRuntime;
  readonly #locate: (error: unknown) => unknown;
  readonly bundle: BuiltCode;

  constructor(runtime: RemoteRuntime, bundle: BuiltCode, locate: (error: unknown) => unknown) {
    this.#runtime = runtime;
    this.bundle = bundle;
    this.#locate = locate;
  }

  get exportNames(): readonly string[] {
    return this.#runtime.exportNames;
  }

  get disposed(): boolean {
    return this.#runtime.disposed;
  }

  async call(name: string, args: readonly unknown[]): Promise<unknown> {
    try {
      return await this.#runtime.call(name, args);
    } catch (error) {
      throw this.#locate(error);
    }
  }

  usage(): { cpuMs: number } {
    return { cpuMs: this.#runtime.cpuMs };
  }

  dispose(): void {
    this.#runtime.dispose();
  }
}
