/**
 * Loads a gate profile and what it stands on: the sandbox profile it names, the limits
 * each test run gets (the sandbox's, lowered by the gate's), and the digests of both YAML
 * files, which the evidence manifest records so a verdict names the exact rules it was
 * reached under.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sha256 } from '../../kernel/build/bundle.ts';
import { kernelError } from '../../kernel/errors.ts';
import { readManifestFile } from '../../kernel/manifest/load.ts';
import { loadSandboxProfile, PROFILES_DIR, type Limits, type SandboxProfile } from '../../kernel/manifest/sandbox-profile.ts';
import { PERMISSION_NAMES } from '../../kernel/permissions/descriptors.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { gateProfileSchema, type GateProfile } from './profile-schema.ts';

export const GATES_DIR = path.join(PROJECT_ROOT, 'policies', 'gates');

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
}

export function listGateProfiles(dir = GATES_DIR): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -5)).sort();
}

function fileDigest(file: string): string {
  return `sha256:${sha256(readFileSync(file))}`;
}

export function loadGateProfile(name: string, dir = GATES_DIR, sandboxDir = PROFILES_DIR): LoadedGateProfile {
  const available = listGateProfiles(dir);
  if (!/^[a-z][a-z0-9-]*$/.test(name) || !available.includes(name)) {
    throw kernelError('RTC_ERR_GATE_PROFILE_UNKNOWN', `no gate profile "${name}" (have: ${available.join(', ') || 'none'})`, { details: { name, available } });
  }
  const file = path.join(dir, `${name}.yaml`);
  const where = path.relative(PROJECT_ROOT, file);
  const profile = readManifestFile(gateProfileSchema, file, PROJECT_ROOT);
  const invalid = (field: string, reason: string) => kernelError('RTC_ERR_MANIFEST_INVALID', `${where}: ${field}: ${reason}`, { details: { file: where, field, reason } });
  if (profile.name !== name) throw invalid('name', `must equal the file name "${name}"`);

  const sandbox = loadSandboxProfile(profile.sandbox, sandboxDir);
  // A gate ceiling wider than its sandbox's would promise the draft what no run can have.
  for (const kind of PERMISSION_NAMES) {
    const asked = (profile.ceiling as Record<string, true | string[] | undefined>)[kind];
    const has = (sandbox.ceiling as Record<string, true | string[] | undefined>)[kind];
    if (asked !== undefined && (asked === true || asked.length > 0) && (has === undefined || (has !== true && has.length === 0))) {
      throw invalid(`ceiling.${kind}`, `the sandbox profile "${sandbox.name}" grants no ${kind} access`);
    }
  }
  const limits: Limits = { ...sandbox.limits };
  for (const [key, value] of Object.entries(profile.limits) as [keyof Limits, number | undefined][]) {
    if (value === undefined) continue;
    if (value > sandbox.limits[key]) throw invalid(`limits.${key}`, `${value} is above the sandbox profile "${sandbox.name}"'s ${sandbox.limits[key]}`);
    limits[key] = value;
  }
  const sandboxFile = path.join(sandboxDir, `${sandbox.name}.yaml`);
  return { profile, file, digest: fileDigest(file), sandbox, sandboxFile, sandboxDigest: fileDigest(sandboxFile), limits };
}
