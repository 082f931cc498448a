/**
 * A Sandbox (kernel/sandbox.ts) of the in-process tier: one IsolateRuntime in this process,
 * its module loaded. Calls take the trusted tier's microsecond path (the first stretch runs
 * with applySync); errors the module throws are located in its sources.
 */
import type { BuiltCode, Sandbox } from '../../kernel/sandbox.ts';
import type { IsolateRuntime } from './isolate-runtime.ts';

export class InProcessSandbox implements Sandbox {
  readonly #runtime: IsolateRuntime;
  readonly #locate: (error: unknown) => unknown;
  readonly bundle: BuiltCode;
  readonly exportNames: readonly string[];

  constructor(runtime: IsolateRuntime, bundle: BuiltCode, exportNames: readonly string[], locate: (error: unknown) => unknown) {
    this.#runtime = runtime;
    this.bundle = bundle;
    this.exportNames = exportNames;
    this.#locate = locate;
  }

  get disposed(): boolean {
    return this.#runtime.disposed;
  }

  async call(name: string, args: readonly unknown[]): Promise<unknown> {
    try {
      return await this.#runtime.call(name, args, true);
    } catch (error) {
      throw this.#locate(error);
    }
  }

  callSync(name: string, args: readonly unknown[]): unknown {
    try {
      return this.#runtime.callSync(name, args);
    } catch (error) {
      throw this.#locate(error);
    }
  }

  usage(): { cpuMs: number } {
    return { cpuMs: this.#runtime.disposed ? 0 : this.#runtime.usage().cpuMs };
  }

  dispose(): void {
    this.#runtime.dispose();
  }
}
