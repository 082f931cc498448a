/** Builds the permission gate and broker context for one sandboxed run or plugin instance. */
import type { AuditEvent, BrokerContext, WorldSources } from '../broker/op.ts';
import type { Tape } from '../broker/tape.ts';
import type { Limits, SandboxProfile } from '../manifest/sandbox-profile.ts';
import { toPermissionSet } from '../manifest/permissions-schema.ts';
import { PermissionGate, type PermissionLayer } from '../permissions/gate.ts';

export function profileLayer(profile: SandboxProfile, cwd: string): PermissionLayer {
  return { label: `profile:${profile.name}`, set: toPermissionSet(profile.ceiling, cwd) };
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
}): BrokerContext {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.env)) if (typeof v === 'string') env[k] = v;
  return {
    subject: options.subject,
    gate: new PermissionGate(options.layers),
    cwd: options.cwd,
    env,
    strictSymlinks: options.profile.strictSymlinks,
    subprocess: { wallMs: options.limits.wallMs, outputBytes: options.limits.outputBytes },
    maxResponseBytes: options.limits.transferBytes,
    audit: options.audit ?? (() => undefined),
    ...(options.tape ? { tape: options.tape } : {}),
    ...(options.sources ? { sources: options.sources } : {}),
    ...(options.mainModule ? { mainModule: options.mainModule } : {}),
    ...(options.execPath ? { execPath: options.execPath } : {}),
  };
}
