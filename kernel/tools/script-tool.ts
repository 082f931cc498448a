/**
 * A script a skill ships (`scripts/*.ts`, `scripts/*.js` in the skill folder), as a tool:
 * each call is one run like `runtimectl sandbox run` (a fresh isolate, `Deno.args` from the
 * call's `args`, stdout and stderr captured, the exit status as Deno would give it), in the
 * tier its sandbox profile names, under a grant of what the skill's manifest requests ∩ the
 * persona's `allow` ∩ the profile's ceiling. Its effects go through its broker, so a recorder
 * keeps them and a replay answers them from the record (running the recorded bundle).
 *
 * Which scripts a persona has, and what their skill requests, is the skills feature's to
 * say (a ScriptToolSpec each); the kernel only runs them.
 */
import { CapabilityBroker } from '../broker/broker.ts';
import type { AuditEvent, WorldSources } from '../broker/op.ts';
import { toPermissionSet, type PathVariables, type PermissionsManifest } from '../manifest/permissions-schema.ts';
import { loadSandboxProfile, type Limits } from '../manifest/sandbox-profile.ts';
import type { PermissionSet } from '../permissions/descriptors.ts';
import { brokerContext, profileLayer } from '../run/grant.ts';
import type { ScriptRunner } from '../run/script-runner.ts';

/** The arguments every script tool takes: its command line. */
export const SCRIPT_INPUT_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    args: { type: 'array', items: { type: 'string' }, description: "the script's command-line arguments (Deno.args)" },
  },
  additionalProperties: false,
};

/** What a script tool answers: the run's exit status and output. */
export interface ScriptToolResult {
  exit_code: number;
  stdout: string;
  stderr: string;
}

export interface ScriptToolSpec {
  /** the tool's name: `skill.<skill name>.<script file stem>` */
  name: string;
  /** what the trace calls it: `skill:<skill id>/scripts/<file>` */
  traceId: string;
  /** the script, absolute */
  file: string;
  /** the skill folder (`${plugin}` in its permissions) */
  dir: string;
  description: string;
  /** what the skill's manifest (its plugin.yaml) requests; none without one */
  permissions: PermissionsManifest;
  /** the sandbox profile the skill's manifest names */
  profile: string;
  limits?: Partial<Limits>;
  /** set when the skill cannot offer the script as a tool (shown by `tools list`, refused on call) */
  refused?: string;
}

export interface ScriptToolOptions {
  allow: PermissionSet;
  vars: PathVariables;
  env: Readonly<Record<string, string>>;
  cwd: string;
  /** the persona's CPU seconds per call (tightens the profile's) */
  cpuSeconds: number;
  audit?: (event: AuditEvent) => void;
  sources?: WorldSources;
  cacheDir?: string;
}

export class ScriptTool {
  readonly spec: ScriptToolSpec;
  readonly broker: CapabilityBroker;
  readonly limits: Limits;
  readonly #runner: ScriptRunner;
  /** the code to run instead of bundling the file (replay of a recorded bundle) */
  readonly #recorded: { code: string; digest: string } | undefined;
  bundle: { code: string; digest: string } | undefined;
  /** every call is a fresh run */
  builds = 0;
  lastCall: { cpuMs: number; wallMs: number } = { cpuMs: 0, wallMs: 0 };

  constructor(spec: ScriptToolSpec, options: ScriptToolOptions, runner: ScriptRunner, recorded?: { code: string; digest: string }) {
    this.spec = spec;
    this.#runner = runner;
    this.#recorded = recorded;
    this.bundle = recorded;
    const profile = loadSandboxProfile(spec.profile);
    const cpuMs = Math.max(1, Math.min(spec.limits?.cpuMs ?? profile.limits.cpuMs, profile.limits.cpuMs, Math.ceil(options.cpuSeconds * 1000)));
    this.limits = { ...profile.limits, ...spec.limits, cpuMs };
    const vars = { plugin: spec.dir, ...options.vars };
    this.broker = new CapabilityBroker(
      brokerContext({
        subject: spec.traceId,
        layers: [
          { label: `manifest:${spec.traceId}`, set: toPermissionSet(spec.permissions, spec.dir, vars) },
          { label: 'caller', set: options.allow },
          profileLayer(profile, spec.dir),
        ],
        cwd: options.cwd,
        env: options.env,
        profile,
        limits: this.limits,
        ...(options.audit ? { audit: options.audit } : {}),
        ...(options.sources ? { sources: options.sources } : {}),
        ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
      }),
    );
  }

  get traceId(): string {
    return this.spec.traceId;
  }

  /** Runs the script once with the call's `args` as its command line. */
  async call(_method: string, ...rest: unknown[]): Promise<ScriptToolResult> {
    const args = ((rest[0] ?? {}) as { args?: string[] }).args ?? [];
    this.builds++;
    const context = this.broker.context;
    const result = await this.#runner.run({
      file: this.spec.file,
      args,
      permissionFlags: [],
      cwd: context.cwd,
      env: context.env,
      profile: this.spec.profile,
      limits: this.limits,
      broker: this.broker,
      ...(this.#recorded ? { bundle: this.#recorded } : {}),
      onBundle: (bundle) => {
        this.bundle = bundle;
      },
    });
    this.lastCall = { cpuMs: result.usage.cpuMs, wallMs: result.usage.wallMs };
    return { exit_code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
  }

  dispose(): void {
    // a run's isolate ends with the run; the runner's warm pool is the owner's to close
  }
}
