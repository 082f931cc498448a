/**
 * The sandbox profiles on disk (`sandboxes/profiles/<name>.yaml`), read and checked against the
 * kernel's schema (kernel/manifest/sandbox-profile.ts), each once per process: what a plugin's
 * manifest names (`sandbox:`), what `sandbox run --profile` and a gate profile's checks run under.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { readManifestFile } from '../../kernel/manifest/load.ts';
import { sandboxProfileSchema, type SandboxProfile } from '../../kernel/manifest/sandbox-profile.ts';
import { shownPath } from '../../kernel/shown-path.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';

export const PROFILES_DIR = path.join(PROJECT_ROOT, 'sandboxes', 'profiles');

const cache = new Map<string, SandboxProfile>();

export function loadSandboxProfile(name: string, dir = PROFILES_DIR): SandboxProfile {
  const key = `${dir}\0${name}`;
  const cached = cache.get(key);
  if (cached) return cached;
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw kernelError('RTC_ERR_PROFILE_UNKNOWN', `"${name}" is not a sandbox profile name`);
  const file = path.join(dir, `${name}.yaml`);
  const available = listSandboxProfiles(dir);
  if (!available.includes(name)) {
    throw kernelError('RTC_ERR_PROFILE_UNKNOWN', `no sandbox profile "${name}" (have: ${available.join(', ')})`);
  }
  const profile = readManifestFile(sandboxProfileSchema, file);
  if (profile.name !== name) {
    throw kernelError('RTC_ERR_MANIFEST_INVALID', `${shownPath(file)}: name: must equal the file name "${name}"`);
  }
  cache.set(key, profile);
  return profile;
}

export function listSandboxProfiles(dir = PROFILES_DIR): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -5)).sort();
}
