/**
 * What a sandboxed module needs before it runs, shared by `sandbox run` (script-runner.ts)
 * and `sandbox test` (test-runner.ts): its profile and limits, its bundle (cached) with the
 * V8 code cache, its broker (grant = flags ∩ profile ceiling), and a stack mapper back to
 * the module's own source lines.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleEntry, readSourceMap } from '../../../sandboxes/loader/bundle.ts';
import { stackMapper, type StackMapper } from '../../../sandboxes/loader/stack-remap.ts';
import { kernelError } from '../../../kernel/errors.ts';
import type { AuditEvent, OsSandboxSettings, WorldSources } from '../../../kernel/broker/op.ts';
import type { Tape } from '../../../kernel/broker/tape.ts';
import { PermissionGate, type PermissionLayer } from '../../../kernel/permissions/gate.ts';
import { importScopeOf } from '../../../sandboxes/loader/import-scope.ts';
import { kernelFilesOf } from '../../../sandboxes/loader/module-loader.ts';
import { CapabilityBroker } from '../../../kernel/broker/broker.ts';
import { DENO_OPS } from '../../../sandboxes/deno/index.ts';
import { type Limits, type SandboxProfile } from '../../../kernel/manifest/sandbox-profile.ts';
import { loadSandboxProfile } from '../../plugin-search/sandbox-profiles.ts';
import type { WriteQuota, WriteQuotaLimits } from '../../../kernel/broker/write-quota.ts';
import { flagsLayer } from '../permission-flags.ts';
import type { CompiledSource } from '../../../sandboxes/isolate/isolate-runtime.ts';
import { withCodeCache } from '../../../sandboxes/isolate/shim-source.ts';
import { denoExecPath } from './exec-path.ts';
import { brokerContext, profileLayer } from '../../../kernel/broker/context.ts';
import type { ScriptLimits } from './script-run-types.ts';

export interface PrepareRequest {
  file: string;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  permissionFlags: readonly string[];
  profile?: string;
  limits?: Partial<ScriptLimits>;
  cacheDir: string;
  audit?: (event: AuditEvent) => void;
  /** import.meta.main of the entry (false for a test file) */
  main?: boolean;
  /** bytes and files/folders the run may add to the disk (kernel/broker/write-quota.ts), or the account of a run of several modules; none: no quota */
  writeQuota?: WriteQuotaLimits | WriteQuota;
  /** told of Deno's start-up warnings (a `--allow-run` name that resolves to nothing) */
  warn?: (line: string) => void;
  /**
   * The grant's layers instead of the flags' (a skill script run as a tool: the skill's
   * manifest and the persona's allow); the profile's ceiling is added after them.
   */
  layers?: PermissionLayer[];
  /** who the broker's audit events name (default `script:<file name>`) */
  subject?: string;
  /** a recording or replay tape for the run's effects */
  tape?: Tape;
  /** the clock and randomness the script sees (default: the host's) */
  sources?: WorldSources;
  /** run this recorded bundle instead of building `file` (a replay) */
  bundle?: { code: string; digest: string };
  /** the OS sandbox of the module's subprocesses (default: required, the kernel's cache hidden) */
  os?: OsSandboxSettings;
}

export interface PreparedModule {
  file: string;
  profile: SandboxProfile;
  limits: Limits;
  source: CompiledSource;
  /** the code that runs (what a recording keeps) */
  bundle: { code: string; digest: string };
  broker: CapabilityBroker;
  mapper: StackMapper;
}

/** The profile and limits a request names (limits may only be given as numbers the profile allows). */
export function resolveProfile(name: string | undefined, overrides: Partial<ScriptLimits> = {}): { profile: SandboxProfile; limits: Limits } {
  const profile = loadSandboxProfile(name ?? 'default');
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as Partial<Limits>;
  return { profile, limits: { ...profile.limits, ...defined } };
}

/** Throws a KernelError (missing file, build failure, bad flag) for the caller to report. */
export async function prepareModule(request: PrepareRequest): Promise<PreparedModule> {
  const { profile, limits } = resolveProfile(request.profile, request.limits);
  const file = path.resolve(request.cwd, request.file);
  if (!request.bundle && (!existsSync(file) || !statSync(file).isFile())) throw kernelError('RTC_ERR_CLI_FILE_NOT_FOUND', `module not found: ${request.file}`);
  const layers = [...(request.layers ?? [flagsLayer(request.permissionFlags, request.cwd)]), profileLayer(profile, request.cwd)];
  // Its imports come from its own tree and from what its grant lets it read (sandboxes/loader/import-scope.ts).
  const reads = new PermissionGate(layers);
  const imports = importScopeOf(file, (target) => reads.query('read', target).state === 'granted', [request.cacheDir]);
  const bundle = request.bundle ?? (await bundleEntry(file, request.cacheDir, 'module', { main: request.main ?? true, imports }));
  const source = withCodeCache(bundle.code, bundle.digest, `file://${file}`, request.cacheDir);
  const broker = new CapabilityBroker(
    brokerContext({
      subject: request.subject ?? `script:${path.basename(file)}`, layers, cwd: request.cwd, env: request.env, profile, limits, audit: request.audit,
      ...(request.tape ? { tape: request.tape } : {}),
      ...(request.sources ? { sources: request.sources } : {}),
      mainModule: pathToFileURL(file).href, execPath: denoExecPath(request.cacheDir), kernelFiles: kernelFilesOf(request.cacheDir),
      ...(request.warn ? { warn: request.warn } : {}),
      ...(request.writeQuota ? { writeQuota: request.writeQuota } : {}),
    }),
    DENO_OPS,
  );
  // The module's subprocesses (run.output and spawn) run in the OS sandbox from its grant; the
  // kernel's cache stays hidden even under -A.
  broker.context.os = request.os ?? { mode: 'required', hide: [request.cacheDir] };
  const mapper = stackMapper(source.filename, readSourceMap(bundle.digest, request.cacheDir), path.dirname(file));
  return { file, profile, limits, source, bundle: { code: bundle.code, digest: bundle.digest }, broker, mapper };
}
