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
 * (features/skills/scripts.ts gives one ScriptToolSpec a script); the kernel only runs them.
 */
import path from 'node:path';
import type { AuditEvent, OsSandboxSettings, WorldSources } from '../broker/op.ts';
import type { Tape } from '../broker/tape.ts';
import { kernelError } from '../errors.ts';
import { toPermissionSet, type PathVariables, type PermissionsManifest } from '../manifest/permissions-schema.ts';
import { loadSandboxProfile, type Limits } from '../manifest/sandbox-profile.ts';
import type { PermissionSet } from '../permissions/descriptors.ts';
import type { ScriptRunner } from '../run/script-runner.ts';
import { chargedFor, reportCallUsage } from './call-usage.ts';

/** The arguments every script tool takes: its command line. */
export const SCRIPT_INPUT_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    args: { type: 'array', items: { type: 'string' }, maxItems: 256, description: "the script's command-line arguments (its Deno.args)" },
  },
  additionalProperties: false,
};

/** What a script tool answers: the run's exit status and output (an uncaught error, a denial or a limit is in stderr, exit code 1). */
export interface ScriptToolResult {
  exit_code: number;
  stdout: string;
  stderr: string;
}

export interface ScriptToolSpec {
  /** the tool's name: `skill.<skill name>.<script file stem>` */
  name: string;
  /** what the trace and the audit call it: `skill:<skill id>/scripts/<file>` */
  traceId: string;
  /** the script, absolute */
  file: string;
  /** the skill folder (`${plugin}` in its manifest's permissions) */
  dir: string;
  description: string;
  /** what the skill's manifest (the plugin.yaml beside its SKILL.md) requests; nothing without one */
  permissions: PermissionsManifest;
  /**
   * The sandbox profile the script runs under: the one the skill's manifest names (default:
   * `default`, the process tier), except an in-process one, which only the persona's `trust:`
   * naming `manifestId` grants (else `default`).
   */
  profile: string;
  /** the id the skill's plugin.yaml declares (what a persona's `trust:` names), when it has one */
  manifestId?: string;
  /** the in-process profile the manifest asks for, when it was not granted and the script runs under `profile` instead */
  requestedProfile?: string;
  /** the manifest's limits (they only tighten the profile's) */
  limits?: Partial<Limits>;
  /** why the skill cannot offer the script (a manifest that does not validate): listed as a problem, never run */
  refused?: string;
}

export interface ScriptToolOptions {
  /** what the persona allows */
  allow: PermissionSet;
  vars: PathVariables;
  /** the persona's plugin environment (what Deno.env may show, by the env grant) */
  env: Readonly<Record<string, string>>;
  /** Deno.cwd() of the script: the persona's folder, as for its other plugins */
  cwd: string;
  /** the persona's CPU seconds per plugin call (tightens the profile's CPU limit) */
  cpuSeconds: number;
  audit?: (event: AuditEvent) => void;
  sources?: WorldSources;
  /** the OS sandbox of the script's subprocesses: the persona's (its state hidden but its own folder) */
  os?: OsSandboxSettings;
}

export class ScriptTool {
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
      layers: [
        { label: `manifest:${spec.traceId}`, set: toPermissionSet(spec.permissions, spec.dir, vars) },
        { label: 'caller', set: o.allow },
      ],
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

/** `skill:<skill id>/scripts/<file>`: what the trace calls a script tool. */
export function scriptTraceId(skillId: string, file: string): string {
  return `skill:${skillId}/scripts/${path.basename(file)}`;
}
