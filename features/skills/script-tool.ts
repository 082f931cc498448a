/**
 * A script a selected skill ships (`scripts/*.ts`, `scripts/*.js` in the skill folder), as a
 * tool. Each call is one run like `runtimectl sandbox run` (the same script runner: a fresh
 * isolate in the tier the skill's sandbox profile names, the call's `args` as `Deno.args`,
 * stdout and stderr captured, the exit status as Deno gives it), under a grant of what the
 * skill's manifest requests ∩ the persona's `allow` ∩ the profile's ceiling. Its effects go
 * through its broker, so a recorder's tape keeps them and a replay answers them from the
 * record, running the recorded bundle.
 *
 * Which scripts a persona has, and what their skills request, is the composition's to say
 * (scripts.ts gives one ScriptToolSpec a script); the kernel calls them through
 * ToolRunners.script (features/persona/tools/runners.ts), recorded like any plugin call.
 */
import type { Tape } from '../../kernel/broker/tape.ts';
import { kernelError } from '../../kernel/errors.ts';
import { grantLayers } from '../../kernel/broker/context.ts';
import { type Limits } from '../../kernel/manifest/sandbox-profile.ts';
import { loadSandboxProfile } from '../plugin-search/sandbox-profiles.ts';
import { createScriptRunner, type ScriptRunner } from '../sandbox-run/runner/script-runner.ts';
import { chargedFor, reportCallUsage } from '../plugin-host/call-usage.ts';
import type { ScriptCallee, ScriptToolOptions } from '../persona/tools/runners.ts';
import type { ScriptToolResult, ScriptToolSpec } from '../persona/tools/script-spec.ts';

export class ScriptTool implements ScriptCallee {
  readonly spec: ScriptToolSpec;
  readonly limits: Limits;
  /** what a recorder puts its tape on (each run gets a broker of its own, handed this tape) */
  readonly broker: { context: { tape?: Tape } } = { context: {} };
  /** the code of the last run (what the trace keeps), or the recorded code a replay runs */
  bundle: { code: string; digest: string } | undefined;
  /** every call is a fresh isolate: no state carries from one call to the next */
  builds = 0;
  lastCall: { cpuMs: number; wallMs: number } = { cpuMs: 0, wallMs: 0 };
  readonly #options: ScriptToolOptions;
  readonly #runner: () => Promise<ScriptRunner>;
  readonly #recorded: { code: string; digest: string } | undefined;

  /** `recorded`: the bundle a replay runs instead of building the script. */
  constructor(spec: ScriptToolSpec, options: ScriptToolOptions, runner: () => Promise<ScriptRunner>, recorded?: { code: string; digest: string }) {
    this.spec = spec;
    this.#options = options;
    this.#runner = runner;
    this.#recorded = recorded;
    this.bundle = recorded;
    const profile = loadSandboxProfile(spec.profile);
    const cpuMs = Math.max(1, Math.min(spec.limits?.cpuMs ?? profile.limits.cpuMs, profile.limits.cpuMs, Math.ceil(options.cpuSeconds * 1000)));
    const tighter = (key: keyof Limits): number => Math.min(spec.limits?.[key] ?? profile.limits[key], profile.limits[key]);
    this.limits = { ...profile.limits, memoryMb: tighter('memoryMb'), wallMs: tighter('wallMs'), outputBytes: tighter('outputBytes'), transferBytes: tighter('transferBytes'), cpuMs };
  }

  get traceId(): string {
    return this.spec.traceId;
  }

  /** Runs the script once with the call's `args` as its command line; a refused script is RTC_ERR_TOOL_SCRIPT. */
  async call(_method: string, ...rest: unknown[]): Promise<ScriptToolResult> {
    const spec = this.spec;
    if (spec.refused) throw kernelError('RTC_ERR_TOOL_SCRIPT', `tool ${spec.name}: ${spec.refused}`, { details: { tool: spec.name } });
    const args = ((rest[0] ?? {}) as { args?: string[] }).args ?? [];
    const o = this.#options;
    const vars = { plugin: spec.dir, ...o.vars };
    this.builds++;
    // a build that fails runs no code: nothing of it is recorded
    this.bundle = this.#recorded;
    const result = await (await this.#runner()).run({
      file: spec.file,
      args,
      permissionFlags: [],
      // the runner adds the profile's ceiling (spec.profile) itself
      layers: grantLayers({ subject: spec.traceId, permissions: spec.permissions, dir: spec.dir, vars, allow: o.allow }),
      subject: spec.traceId,
      cwd: o.cwd,
      env: o.env,
      profile: spec.profile,
      limits: this.limits,
      ...(this.broker.context.tape ? { tape: this.broker.context.tape } : {}),
      ...(o.sources ? { sources: o.sources } : {}),
      ...(o.audit ? { audit: o.audit } : {}),
      ...(o.os ? { os: o.os } : {}),
      ...(this.#recorded ? { bundle: this.#recorded } : {}),
      onBundle: (bundle) => {
        this.bundle = bundle;
      },
    });
    // A run ended by its CPU or wall limit is charged at least that limit (call-usage.ts).
    this.lastCall = chargedFor({ cpuMs: result.usage.cpuMs, wallMs: result.usage.wallMs }, result.error?.code, this.limits);
    reportCallUsage(this.lastCall);
    return { exit_code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
  }

  dispose(): void {
    // a run's isolate ends with the run; the runner's warm pool is its owner's to close
  }
}


/**
 * The script half of a persona's ToolRunners (features/persona/tools/runners.ts): its script tools share
 * one script runner over the kit's build cache, started on first use; `close` ends its warm
 * sandbox host processes (they are also unref'd children of this process).
 */
export function scriptTools(cacheDir: string): { script(spec: ScriptToolSpec, options: ScriptToolOptions, recorded?: { code: string; digest: string }): ScriptTool; close(): Promise<void> } {
  let runner: Promise<ScriptRunner> | undefined;
  return {
    script: (spec, options, recorded) => new ScriptTool(spec, options, () => (runner ??= createScriptRunner({ cacheDir })), recorded),
    close: async () => {
      const started = runner;
      runner = undefined;
      await started?.then((r) => r.close(), () => undefined);
    },
  };
}
