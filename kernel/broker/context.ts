/** Builds the permission gate and broker context for one sandboxed run or plugin instance. */
import type { AuditEvent, BrokerContext, KernelFiles, WorldSources } from './op.ts';
import { RunScope, scopeLimits } from './run-scope.ts';
import { WriteQuota, type WriteQuotaLimits } from './write-quota.ts';
import type { Tape } from './tape.ts';
import type { Limits, SandboxProfile } from '../manifest/sandbox-profile.ts';
import { toPermissionSet, type PathVariables, type PermissionsManifest } from '../manifest/permissions-schema.ts';
import type { PermissionSet } from '../permissions/descriptors.ts';
import { PermissionGate, type PermissionLayer } from '../permissions/gate.ts';
import { resolveRunLayer } from '../permissions/run-grants.ts';

export function profileLayer(profile: SandboxProfile, cwd: string): PermissionLayer {
  return { label: `profile:${profile.name}`, set: toPermissionSet(profile.ceiling, cwd) };
}

/** Who asks for a grant: what its manifest declares (paths from its folder, `${plugin}` = the folder), what its caller allows, the profile it runs under. */
export interface GrantRequest {
  /** the manifest's id (plugin, tool, skill script), as NotCapable and the audit name its layer */
  subject: string;
  permissions: PermissionsManifest | undefined;
  dir: string;
  vars?: PathVariables;
  /** what the caller (a persona) allows */
  allow: PermissionSet;
  /** the profile's ceiling, when the caller of this function applies it (a script runner adds its own) */
  profile?: SandboxProfile;
}

/**
 * The one grant: manifest ∩ the caller's allowance ∩ the profile's ceiling, as the gate's layers
 * (a request passes only if every layer allows it). Every plugin instance, mounted server, tool
 * listing and skill script builds its grant here.
 */
export function grantLayers(r: GrantRequest): PermissionLayer[] {
  const layers: PermissionLayer[] = [
    { label: `manifest:${r.subject}`, set: toPermissionSet(r.permissions, r.dir, { plugin: r.dir, ...r.vars }) },
    { label: 'caller', set: r.allow },
  ];
  if (r.profile) layers.push(profileLayer(r.profile, r.dir));
  return layers;
}

/** How long a fetch may wait for its headers, or for the next chunk of its body. */
const NET_IDLE_MAX_MS = 30_000;

/**
 * Whether code under this grant may start children that write files: some program may run
 * and some path may be written, in every layer. Such children (sandboxed: they get the same
 * write grant) can leave links in what they write for this code's own file ops to follow out
 * of the grant, so its file ops take the strict-symlink rule (sandboxes/deno/ops/fs-guard.ts):
 * a path's real location must itself be granted, and it is opened without following any link.
 */
export function childrenMayWrite(gate: PermissionGate): boolean {
  const some = (kind: 'run' | 'write') => gate.layers.every((layer) => layer.set[kind].deny !== true && (layer.set[kind].allow === true || layer.set[kind].allow.length > 0));
  // Where the code may read and write everything itself (`-A`), a link leads nowhere it could not go.
  const wholly = (kind: 'read' | 'write') => gate.layers.every((layer) => layer.set[kind].allow === true && layer.set[kind].deny !== true && layer.set[kind].deny.length === 0);
  return some('run') && some('write') && !(wholly('read') && wholly('write'));
}

function quotaOf(quota: WriteQuotaLimits | WriteQuota | undefined): WriteQuota | null {
  if (quota === undefined) return null;
  return quota instanceof WriteQuota ? quota : new WriteQuota(quota);
}

export function brokerContext(options: {
  subject: string;
  layers: PermissionLayer[];
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  profile: SandboxProfile;
  limits: Limits;
  audit?: (event: AuditEvent) => void;
  tape?: Tape;
  sources?: WorldSources;
  mainModule?: string;
  execPath?: string;
  /** what of the kernel's own is out of every grant's reach (the sandbox loader's build cache: ModuleLoader.protectedFiles) */
  kernelFiles?: KernelFiles;
  /** what the run may add to the disk (write-quota.ts): its limits, or an account shared with other modules of one run; none: no quota */
  writeQuota?: WriteQuotaLimits | WriteQuota;
  /** told of each `run` name of the first (request) layer that resolves to nothing, as Deno says at start */
  warn?: (line: string) => void;
}): BrokerContext {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.env)) if (typeof v === 'string') env[k] = v;
  // Deno's rule: a `run` name grants the program it resolves to on the PATH the run starts with.
  const layers = options.layers.map((layer, i) =>
    resolveRunLayer(layer, env.PATH ?? '', options.cwd, i === 0 ? (name) => options.warn?.(`Info Failed to resolve '${name}' for allow-run: cannot find binary path\n`) : undefined),
  );
  const gate = new PermissionGate(layers);
  const context: BrokerContext = {
    subject: options.subject,
    gate,
    cwd: options.cwd,
    env,
    strictSymlinks: options.profile.strictSymlinks || childrenMayWrite(gate),
    subprocess: { wallMs: options.limits.wallMs, outputBytes: options.limits.outputBytes },
    maxResponseBytes: options.limits.transferBytes,
    // half the wall limit, so a stalled server is a TypeError the script can catch before its time is up
    netTimeoutMs: Math.max(1, Math.min(Math.floor(options.limits.wallMs / 2), NET_IDLE_MAX_MS)),
    scope: new RunScope(scopeLimits(options.limits.transferBytes), quotaOf(options.writeQuota)),
    ...(options.kernelFiles ? { kernelFiles: options.kernelFiles } : {}),
    audit: options.audit ?? (() => undefined),
    ...(options.tape ? { tape: options.tape } : {}),
    ...(options.sources ? { sources: options.sources } : {}),
    ...(options.mainModule ? { mainModule: options.mainModule } : {}),
    ...(options.execPath ? { execPath: options.execPath } : {}),
  };
  return context;
}
