/**
 * Loads a gate profile and what it stands on: the sandbox profile it names, the limits
 * each test run gets (the sandbox's, lowered by the gate's), the check plugins it lists
 * with what each is granted, and the digests of the YAML files, which the evidence manifest
 * records so a verdict names the exact rules it was reached under.
 *
 * Everything that could make a gate run fail for the profile's sake is refused here with
 * one line naming the file and the field: a check no plugin provides, a check listed before
 * one it reads, a check whose manifest asks for more than the profile grants it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { sha256 } from '../../sandboxes/loader/bundle.ts';
import { kernelError } from '../../kernel/errors.ts';
import { readManifestFile } from '../../kernel/manifest/load.ts';
import { loadSandboxProfile, PROFILES_DIR, type Limits, type SandboxProfile } from '../../kernel/manifest/sandbox-profile.ts';
import type { LoadedPlugin } from '../../kernel/plugins/registry.ts';
import { PLUGINS_DIR } from '../plugin-search/scan.ts';
import { PERMISSION_NAMES } from '../../kernel/permissions/descriptors.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { shownPath } from '../../kernel/shown-path.ts';
import { beyondCeiling } from './ceiling.ts';
import { gateChecksOf, missingCheckReason } from './check-plugins.ts';
import { checkEntry, gateProfileSchema, type CheckEntry, type GateProfile } from './profile-schema.ts';

export const GATES_DIR = path.join(PROJECT_ROOT, 'policies', 'gates');

/** One check of the profile, resolved to its plugin. */
export interface ResolvedCheck {
  name: string;
  /** the profile's entry: what the check is granted */
  entry: CheckEntry;
  /** `checks[i]` in the profile file, for messages */
  field: string;
  plugin: LoadedPlugin;
  /** sha256 of the plugin's manifest file, recorded in the evidence */
  manifestDigest: string;
  /** the checks whose results it is given, all earlier in the profile */
  reads: string[];
}

export interface LoadedGateProfile {
  profile: GateProfile;
  /** the YAML file, and `sha256:<hex>` of its bytes */
  file: string;
  digest: string;
  sandbox: SandboxProfile;
  sandboxFile: string;
  sandboxDigest: string;
  /** what each test run gets: the sandbox profile's limits with the gate's lower ones */
  limits: Limits;
  checks: ResolvedCheck[];
}

export function listGateProfiles(dir = GATES_DIR): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -5)).sort();
}

function fileDigest(file: string): string {
  return `sha256:${sha256(readFileSync(file))}`;
}

/** A profile argument is a name in the gates folder, or a path to a YAML file of one's own. */
function profileFile(nameOrFile: string, dir: string, cwd: string): { file: string; name: string } {
  if (nameOrFile.includes('/') || nameOrFile.endsWith('.yaml')) {
    const file = path.resolve(cwd, nameOrFile);
    if (!existsSync(file) || !statSync(file).isFile()) throw kernelError('RTC_ERR_GATE_PROFILE_UNKNOWN', `gate profile file ${nameOrFile} does not exist`, { details: { file } });
    return { file, name: path.basename(file).replace(/\.yaml$/, '') };
  }
  const available = listGateProfiles(dir);
  if (!/^[a-z][a-z0-9-]*$/.test(nameOrFile) || !available.includes(nameOrFile)) {
    throw kernelError('RTC_ERR_GATE_PROFILE_UNKNOWN', `no gate profile "${nameOrFile}" (have: ${available.join(', ') || 'none'})`, { details: { name: nameOrFile, available } });
  }
  return { file: path.join(dir, `${nameOrFile}.yaml`), name: nameOrFile };
}

export interface LoadGateProfileOptions {
  /** the gates folder for a bare name */
  dir?: string;
  sandboxDir?: string;
  /** the plugin search path to find checks on (features/plugin-search/scan.ts pluginSearchPath) */
  pluginDirs?: readonly string[];
  cwd?: string;
}

/** A stand-in for the draft's snapshot while comparing grants: the same in both, so `${draft}` paths compare. */
const DRAFT_PLACEHOLDER = '/nonexistent/runtimectl-gate-draft';

function resolveChecks(profile: GateProfile, where: string, pluginDirs: readonly string[]): ResolvedCheck[] {
  const found = gateChecksOf(pluginDirs);
  const listed = new Set(profile.checks.map((raw) => checkEntry(raw).check));
  const resolved: ResolvedCheck[] = [];
  const fail = (code: 'RTC_ERR_GATE_CHECK_UNKNOWN' | 'RTC_ERR_GATE_CHECK_GRANT', field: string, reason: string) =>
    kernelError(code, `${where}: ${field}: ${reason}`, { details: { file: where, field, reason } });
  for (const [i, raw] of profile.checks.entries()) {
    const entry = checkEntry(raw);
    const field = `checks[${i}]`;
    const plugin = found.checks.get(entry.check);
    if (!plugin) throw fail('RTC_ERR_GATE_CHECK_UNKNOWN', field, missingCheckReason(entry.check, found));
    const section = plugin.manifest.gate_check ?? { reads: [], reads_optional: [] };
    const before = new Set(resolved.map((r) => r.name));
    for (const need of section.reads) {
      if (!before.has(need)) {
        throw fail('RTC_ERR_GATE_CHECK_GRANT', field, listed.has(need) ? `"${entry.check}" reads the result of "${need}", which must come before it` : `"${entry.check}" reads the result of "${need}", which this profile does not list`);
      }
    }
    for (const maybe of section.reads_optional) {
      if (listed.has(maybe) && !before.has(maybe)) throw fail('RTC_ERR_GATE_CHECK_GRANT', field, `"${entry.check}" reads the result of "${maybe}", which must come before it`);
    }
    const id = plugin.manifest.id;
    const ungranted = plugin.manifest.bindings.filter((b) => !(entry.bindings as string[]).includes(b));
    if (ungranted.length > 0) throw fail('RTC_ERR_GATE_CHECK_GRANT', `${field}.bindings`, `${id} declares ${ungranted.join(', ')}, which this profile does not grant it`);
    const vars = { plugin: plugin.dir, draft: DRAFT_PLACEHOLDER };
    const over = beyondCeiling(plugin.manifest.permissions, entry.allow, plugin.dir, vars);
    if (over.length > 0) throw fail('RTC_ERR_GATE_CHECK_GRANT', `${field}.allow`, `${id} asks for ${over.join(', ')}, which this profile does not allow it`);
    resolved.push({
      name: entry.check,
      entry,
      field,
      plugin,
      manifestDigest: fileDigest(path.join(plugin.dir, 'plugin.yaml')),
      reads: [...section.reads, ...section.reads_optional.filter((m) => before.has(m))],
    });
  }
  return resolved;
}

export function loadGateProfile(nameOrFile: string, options: LoadGateProfileOptions = {}): LoadedGateProfile {
  const { file, name } = profileFile(nameOrFile, options.dir ?? GATES_DIR, options.cwd ?? process.cwd());
  const where = shownPath(file);
  const profile = readManifestFile(gateProfileSchema, file);
  const invalid = (field: string, reason: string) => kernelError('RTC_ERR_MANIFEST_INVALID', `${where}: ${field}: ${reason}`, { details: { file: where, field, reason } });
  if (profile.name !== name) throw invalid('name', `must equal the file name "${name}"`);

  const sandbox = loadSandboxProfile(profile.sandbox, options.sandboxDir ?? PROFILES_DIR);
  // A gate ceiling wider than its sandbox's would promise the draft what no run can have.
  for (const kind of PERMISSION_NAMES) {
    const asked = (profile.ceiling as Record<string, true | string[] | undefined>)[kind];
    const has = (sandbox.ceiling as Record<string, true | string[] | undefined>)[kind];
    if (asked !== undefined && (asked === true || asked.length > 0) && (has === undefined || (has !== true && has.length === 0))) {
      throw invalid(`ceiling.${kind}`, `the sandbox profile "${sandbox.name}" grants no ${kind} access`);
    }
  }
  // A subprocess writes with its own system calls, past the broker's scratch quota.
  const run = profile.ceiling.run;
  if (run !== undefined && (run === true || run.length > 0)) throw invalid('ceiling.run', "a draft's subprocesses would write past the gate's scratch quota, so a gate ceiling grants no run access");
  const limits: Limits = { ...sandbox.limits };
  for (const [key, value] of Object.entries(profile.limits) as [keyof Limits, number | undefined][]) {
    if (value === undefined) continue;
    if (value > sandbox.limits[key]) throw invalid(`limits.${key}`, `${value} is above the sandbox profile "${sandbox.name}"'s ${sandbox.limits[key]}`);
    limits[key] = value;
  }
  const checks = resolveChecks(profile, where, options.pluginDirs ?? [PLUGINS_DIR]);
  const sandboxFile = path.join(options.sandboxDir ?? PROFILES_DIR, `${sandbox.name}.yaml`);
  return { profile, file, digest: fileDigest(file), sandbox, sandboxFile, sandboxDigest: fileDigest(sandboxFile), limits, checks };
}
