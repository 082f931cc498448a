/**
 * Sandbox profiles (`sandboxes/profiles/<name>.yaml`): the isolation tier, the limits and
 * the permission ceiling every plugin or script run under the profile gets.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { kernelError } from '../errors.ts';
import { PROJECT_ROOT } from '../version.ts';
import { shownPath } from '../shown-path.ts';
import { readManifestFile } from './load.ts';
import { permissionsSchema } from './permissions-schema.ts';

export const limitsSchema = z.strictObject({
  memoryMb: z.number().int().min(8).max(16384).describe('isolate heap limit in MB (isolated-vm memoryLimit; minimum 8)'),
  cpuMs: z.number().int().min(1).max(3_600_000).describe('CPU time one call (or one script run) may use, ms'),
  wallMs: z.number().int().min(1).max(86_400_000).describe('wall time one call (or one script run) may take, ms'),
  outputBytes: z.number().int().min(0).max(1 << 30).describe('bytes of stdout+stderr a run may write'),
  transferBytes: z.number().int().min(1024).max(1 << 30).describe('bytes one value crossing the isolate boundary may have'),
});

export type Limits = z.infer<typeof limitsSchema>;

export const sandboxProfileSchema = z.strictObject({
  $schema: z.string().optional(),
  name: z.string().regex(/^[a-z][a-z0-9-]*$/, 'lowercase letters, digits and dashes').describe('the profile name; equals the file name'),
  description: z.string().min(1).max(500),
  tier: z.enum(['in-process', 'process']).describe('in-process isolates (trusted first-party code) or isolates inside a pool of sandbox host processes (untrusted code)'),
  limits: limitsSchema,
  ceiling: permissionsSchema.describe('the most any plugin or script under this profile may be granted'),
  rssCapMb: z.number().int().min(64).max(65536).optional().describe('process tier: a sandbox host process above this resident size is killed'),
  webAssembly: z.boolean().describe('whether WebAssembly exists inside the isolate (its memory is not counted by the isolate limit)'),
  strictSymlinks: z.boolean().describe('refuse a path whose real location (after symlinks) is outside the grant; Deno itself follows them'),
});

export type SandboxProfile = z.infer<typeof sandboxProfileSchema>;

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
