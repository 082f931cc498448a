/**
 * The tools of a persona that are not plugin code in an isolate, as the kernel calls them: an
 * MCP server a tool plugin mounts (features/mcp/mount) and a selected skill's script
 * (features/skills/script-tool.ts). The composition hands in how they are made
 * (LoopComposition.tools); the kernel records their calls like any plugin call, meters them
 * and disposes them, and knows nothing of subprocesses, MCP clients or script runners.
 */
import type { AuditEvent, OsSandboxSettings, WorldSources } from '../../../kernel/broker/op.ts';
import { canonicalJson } from '../../../kernel/events/canonical.ts';
import type { Limits, SandboxProfile } from '../../../kernel/manifest/sandbox-profile.ts';
import type { McpServerDeclaration } from '../../../kernel/manifest/plugin-manifest.ts';
import type { PathVariables } from '../../../kernel/manifest/permissions-schema.ts';
import type { PermissionLayer } from '../../../kernel/permissions/gate.ts';
import type { PermissionSet } from '../../../kernel/permissions/descriptors.ts';
import type { LoadedPlugin } from '../../../kernel/plugins/registry.ts';
import type { RecordedCallee } from '../../cycle-recording/cycle-recorder.ts';
import type { BuiltCode } from '../../../kernel/sandbox.ts';
import type { ScriptToolSpec } from './script-spec.ts';

/** The code a mount "runs", for the trace, the substrate and replay: the server it declares, canonically. */
export function mountCode(mcp: McpServerDeclaration): string {
  return canonicalJson({ mcp });
}

/** A tool the kernel calls through its recorder that is not a plugin instance. */
export interface ToolCallee extends RecordedCallee {
  /** the CPU and wall limits one call runs under (what it reserves of the persona's tool budget) */
  readonly limits: Limits;
  /** what the last call used: what a tool call is metered by */
  readonly lastCall: { cpuMs: number; wallMs: number };
  dispose(): void;
}

/** One tool a mounted server offers, as its `tools/list` said. */
export interface RemoteTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** A mounted MCP server: started on first use, its tools listed, each call one effect on the broker's tape (`mcp.call`). */
export interface MountedServer extends ToolCallee {
  /** how the running server is contained: `bubblewrap`, or why not (`off: ...`, `unavailable: ...`); undefined before its first start */
  readonly osSandbox: string | undefined;
  tools(): Promise<RemoteTool[]>;
}

export interface McpMountOptions {
  /** what the persona allows (intersected with the manifest and the ceiling) */
  allow: PermissionSet;
  vars: PathVariables;
  /** the persona's plugin environment: PATH to find the command, pass_env values */
  env: Readonly<Record<string, string>>;
  cwd: string;
  audit?: (event: AuditEvent) => void;
  /** the per-call wall limit and the output cap (default: the plugin's limits) */
  limits?: Partial<Limits>;
  /**
   * the persona's OS sandbox settings (its mode, the kernel trees to hide, its own folder):
   * the server runs inside bubblewrap as a plugin's `run` children do. None (a replay, which
   * starts no server): a plain child.
   */
  os?: OsSandboxSettings;
}

/** A skill's script as a tool: each call one sandboxed run of it. */
export interface ScriptCallee extends ToolCallee {
  readonly spec: ScriptToolSpec;
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

/** What a tool may do, as `tools list` shows it: per kind, `true` (anything) or what every layer allows. */
export interface ToolGrant {
  read: true | string[];
  write: true | string[];
  net: true | string[];
  env: true | string[];
  run: true | string[];
  /** the sandbox profile the tool runs under, and its tier */
  profile: string;
  tier: string;
}

/**
 * How a persona's mounts and script tools are made, one set per PersonaPlugins (or replay):
 * `close` ends what they keep warm (a script runner's sandbox host processes).
 */
export interface ToolRunners {
  mount(plugin: LoadedPlugin, options: McpMountOptions): MountedServer;
  /** `recorded`: the bundle a replay runs instead of building the script */
  script(spec: ScriptToolSpec, options: ScriptToolOptions, recorded?: BuiltCode): ScriptCallee;
  /** the summary of a tool's grant folded from the layers the broker checks (a summary for people; the broker still decides each access) */
  grant(layers: readonly PermissionLayer[], profile: Pick<SandboxProfile, 'name' | 'tier'>): ToolGrant;
  close(): Promise<void>;
}
