/**
 * How a persona's plugins are built, in one place for the loop (persona-plugins.ts) and for
 * replay (features/science-loop/replay-persona.ts), so a replayed cycle runs each plugin under exactly the grant,
 * bindings and limits the recorded one had: grant = manifest ∩ the persona's `allow` ∩ the
 * profile ceiling; bindings = the manifest's ∩ the persona's; CPU per call tightened to the
 * persona's budget; an executor's subprocess wall limit is the persona's wall seconds per
 * cycle, with the isolate's own wall limit a little above it so the subprocess is killed
 * first and the plugin can still write its session files.
 */
import path from 'node:path';
import type { AuditEvent, WorldSources } from '../../kernel/broker/op.ts';
import type { BindingImplementations } from '../../kernel/broker/bindings.ts';
import { toPermissionSet, type PathVariables } from '../../kernel/manifest/permissions-schema.ts';
import type { PermissionSet } from '../../kernel/permissions/descriptors.ts';
import type { PersonaProfile } from '../../kernel/personas/profile-schema.ts';
import { PluginInstance } from '../plugin-host/plugin-instance.ts';
import { SecretValues, type Scrubber } from '../secret-values/secret-values.ts';
import type { LoadedPlugin } from '../../kernel/plugins/registry.ts';
import type { PluginKind } from '../../kernel/manifest/plugin-manifest.ts';
import type { ChildTrackerLike, SandboxKit } from '../../kernel/sandbox.ts';
import type { ToolRunners } from './tools/runners.ts';
import { personaPaths, providerHomeDir, workspaceDir } from '../persona-layout/layout.ts';

/** Grace between the subprocess wall limit and the isolate's, for writing the session files. */
const EXECUTOR_WALL_GRACE_MS = 5000;

export type PersonaPluginKind = PluginKind;

/** CPU seconds one plugin call may use, and an executor session's wall seconds. */
export interface PluginLimits {
  cpu_seconds_per_cycle: number;
  wall_seconds_per_cycle: number;
}

export interface PersonaPluginOptions {
  personaId: string;
  /** the persona's own folder: the one part of the state directory its subprocesses may see */
  personaDir: string;
  /** the profile's os_sandbox: required (bubblewrap or a refusal) or off (the operator opted out) */
  osSandbox: 'required' | 'off';
  /** kernel trees every subprocess's OS sandbox masks: the state root, the kernel's cache */
  hidden: string[];
  /** the kernel's registry of running children (stop, crash markers), when there is one */
  tracker?: ChildTrackerLike;
  /** programs an executor's harness starts besides itself (the MCP server it is handed): visible read-only */
  programs?: string[];
  /** trees those programs read (visible read-only to an executor's subprocesses) */
  programReads?: string[];
  /** the kernel's environment (where bubblewrap is looked for) */
  hostEnv?: Readonly<Record<string, string | undefined>>;
  /** how each plugin's sandbox is made, and the build cache every subprocess's OS sandbox hides */
  kit: SandboxKit;
  /** how the persona's mounted MCP servers and script tools are made (the composition's) */
  tools: (kit: SandboxKit) => ToolRunners;
  allow: PermissionSet;
  /** the path variables of the persona's ceiling (`allow`): `${session}` there is every session's folder */
  vars: PathVariables;
  /**
   * the executor session running now (PersonaPlugins.bindSession): a plugin's own `${session}`
   * is its folder, and nothing between sessions
   */
  session?: { dir: string | null };
  /** the environment the plugins see (and their subprocesses inherit) */
  env: Record<string, string>;
  /** cwd of executors (the workspace) and of other plugins (the persona folder) */
  executorCwd: string;
  otherCwd: string;
  cpuSeconds: number;
  wallSeconds: number;
  grantedBindings: readonly string[];
  bindings: BindingImplementations;
  audit: (event: AuditEvent) => void;
  /** the clock and randomness plugins see (default: the host's) */
  sources?: WorldSources;
  /** scrubs what the plugins write inside the persona folder (personaWriteScrub) */
  scrubWrite?: (file: string, data: Buffer) => Buffer;
}

/**
 * The persona's secrets by value (issue 12 item 13): every variable its profile's `env` hands
 * its plugins and their subprocesses, whatever its name. PATH, HOME and the ledger's own
 * variables are the kernel's, not secrets.
 */
export function personaSecrets(host: Readonly<Record<string, string | undefined>>, profile: PersonaProfile, extra: Record<string, string> = {}): SecretValues {
  const handed = pluginEnv(host, profile, {});
  return SecretValues.fromEnv(handed, ['PATH', 'HOME', ...Object.keys(extra)]);
}

/**
 * The broker's write hook for a persona's plugins: what they write inside the persona's
 * folder has the persona's secret values scrubbed, and session files (brain/sessions/: the
 * executor's stdout, stderr, last message, manifest) the pattern rules too. Writes elsewhere
 * (a granted folder outside the state) are the plugin's own business and are left as written.
 */
export function personaWriteScrub(personaDir: string, sessionsDir: string, scrub: Scrubber): (file: string, data: Buffer) => Buffer {
  const inside = (file: string, dir: string) => {
    const rel = path.relative(dir, file);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  };
  return (file, data) => {
    if (!inside(file, personaDir)) return data;
    const valued = scrub.bytes(data);
    if (!inside(file, sessionsDir)) return valued;
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(valued);
    } catch {
      return valued;
    }
    if (file.endsWith('.json')) {
      const json = scrub.json(text.trimEnd());
      if (json === text.trimEnd()) return valued;
      // Re-written only when a pattern matched; keep it readable as the executor wrote it.
      try {
        return Buffer.from(`${JSON.stringify(JSON.parse(json), null, 2)}\n`, 'utf8');
      } catch {
        return Buffer.from(json, 'utf8');
      }
    }
    const scrubbed = scrub.text(text);
    return scrubbed === text ? valued : Buffer.from(scrubbed, 'utf8');
  };
}

/** The environment a persona's plugins see: PATH, HOME, the profile's `env` names, and what the composition adds (the local ledger's path). */
export function pluginEnv(host: Readonly<Record<string, string | undefined>>, profile: PersonaProfile, extra: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const take = (name: string) => {
    const value = host[name];
    if (typeof value === 'string') out[name] = value;
  };
  take('PATH');
  take('HOME');
  for (const pattern of profile.env) {
    if (pattern.endsWith('*')) {
      const prefix = pattern.slice(0, -1);
      for (const name of Object.keys(host)) if (name.startsWith(prefix)) take(name);
    } else take(pattern);
  }
  // Where the operator's credential lives is the operator's, never a persona's, whatever its profile asks.
  for (const name of Object.keys(out)) if (name.startsWith('RUNTIMECTL_OPERATOR')) delete out[name];
  return { ...out, ...extra };
}

export interface PersonaPluginInputs {
  stateDir: string;
  /** the persona's scrub (its secret values and the pattern rules), for what its plugins write */
  scrub?: Scrubber;
  tracker?: ChildTrackerLike;
  programs?: string[];
  programReads?: string[];
  profile: PersonaProfile;
  hostEnv: Readonly<Record<string, string | undefined>>;
  limits: PluginLimits;
  /** variables the composition hands every plugin of the persona (the local ledger's path) */
  extraEnv?: Record<string, string>;
  kit: SandboxKit;
  tools: (kit: SandboxKit) => ToolRunners;
  bindings: BindingImplementations;
  audit: (event: AuditEvent) => void;
  sources?: WorldSources;
}

export function personaPluginOptions(i: PersonaPluginInputs): PersonaPluginOptions {
  const paths = personaPaths(i.stateDir, i.profile.id);
  const vars = {
    state: paths.dir,
    workspace: paths.workspaceRoot,
    session: paths.sessionsDir,
    scratch: path.join(workspaceDir(paths), 'scratch'),
  };
  return {
    personaId: i.profile.id,
    personaDir: paths.dir,
    osSandbox: i.profile.os_sandbox,
    hidden: [i.stateDir, i.kit.loader.cacheDir],
    hostEnv: i.hostEnv,
    ...(i.tracker ? { tracker: i.tracker } : {}),
    ...(i.programs ? { programs: i.programs } : {}),
    ...(i.programReads ? { programReads: i.programReads } : {}),
    kit: i.kit,
    tools: i.tools,
    allow: toPermissionSet(i.profile.allow, paths.dir, vars),
    vars,
    session: { dir: null },
    env: pluginEnv(i.hostEnv, i.profile, i.extraEnv ?? {}),
    executorCwd: workspaceDir(paths),
    otherCwd: paths.dir,
    cpuSeconds: i.limits.cpu_seconds_per_cycle,
    wallSeconds: i.limits.wall_seconds_per_cycle,
    // Selecting tools grants the tools binding (an executor still has to declare it).
    grantedBindings: i.profile.tools.length > 0 && !i.profile.bindings.includes('tools') ? [...i.profile.bindings, 'tools'] : i.profile.bindings,
    bindings: i.bindings,
    audit: i.audit,
    ...(i.sources ? { sources: i.sources } : {}),
    ...(i.scrub ? { scrubWrite: personaWriteScrub(paths.dir, paths.sessionsDir, i.scrub) } : {}),
  };
}

/** A running instance of `plugin` for this persona; `bundle` runs recorded code instead of the entry (replay). */
export function buildPersonaPlugin(o: PersonaPluginOptions, plugin: LoadedPlugin, kind: PersonaPluginKind, bundle?: { code: string; digest: string }): PluginInstance {
  const base = { ...plugin.profile.limits, ...plugin.manifest.limits };
  const cpuMs = Math.max(1, Math.min(base.cpuMs, Math.ceil(o.cpuSeconds * 1000)));
  const subprocessWallMs = Math.max(1, Math.ceil(o.wallSeconds * 1000));
  const wallMs = kind === 'executor' ? subprocessWallMs + EXECUTOR_WALL_GRACE_MS : base.wallMs;
  const tuned: LoadedPlugin = { ...plugin, manifest: { ...plugin.manifest, limits: { ...plugin.manifest.limits, cpuMs, wallMs } } };
  // An executor's sessions live in its provider home: HOME there, `${home}` in its manifest.
  const home = kind === 'executor' ? providerHomeDir(o.personaDir, plugin.manifest.id) : undefined;
  const instance = new PluginInstance(tuned, {
    kit: o.kit,
    allow: o.allow,
    vars: { ...o.vars, session: o.session?.dir ?? null, ...(home ? { home } : {}) },
    cwd: kind === 'executor' ? o.executorCwd : o.otherCwd,
    env: home ? { ...o.env, HOME: home } : o.env,
    audit: o.audit,
    ...(o.sources ? { sources: o.sources } : {}),
    ...(bundle ? { bundle } : {}),
  });
  // The broker's context is built by PluginInstance; what only the persona knows is added:
  // the subprocess wall limit (below the isolate's) and this persona's bindings.
  const context = instance.broker.context;
  context.subprocess.wallMs = subprocessWallMs;
  // A persona's folders are written by its plugins' sandboxed children (sessions, workspace,
  // provider homes): no plugin of the persona follows a link out of its grant there.
  context.strictSymlinks = true;
  if (o.scrubWrite) context.scrubWrite = o.scrubWrite;
  context.os = {
    mode: o.osSandbox,
    hide: o.hidden,
    own: o.personaDir,
    ...(home ? { home } : {}),
    ...(kind === 'executor' && o.programs ? { programs: o.programs } : {}),
    ...(kind === 'executor' && o.programReads ? { readOnly: o.programReads } : {}),
    ...(o.tracker ? { tracker: o.tracker } : {}),
    ...(o.hostEnv ? { hostEnv: o.hostEnv } : {}),
  };
  context.bindings = { grantor: o.personaId, declared: plugin.manifest.bindings, granted: o.grantedBindings, impl: o.bindings };
  return instance;
}
