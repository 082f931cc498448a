/**
 * A script a selected skill ships (`scripts/*.ts`, `scripts/*.js` in the skill folder), as a
 * tool: what the kernel knows of it. Which scripts a persona has, and what their skills
 * request, is the composition's to say (features/skills/scripts.ts gives one ScriptToolSpec
 * a script); how one is run is the composition's too (features/skills/script-tool.ts, handed
 * in as ToolRunners.script). The kernel lists them, checks their arguments and records their calls.
 */
import path from 'node:path';
import type { Limits } from '../../../kernel/manifest/sandbox-profile.ts';
import type { PermissionsManifest } from '../../../kernel/manifest/permissions-schema.ts';

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

/** `skill:<skill id>/scripts/<file>`: what the trace calls a script tool. */
export function scriptTraceId(skillId: string, file: string): string {
  return `skill:${skillId}/scripts/${path.basename(file)}`;
}
