/**
 * Sandbox profiles: the isolation tier, the limits and the permission ceiling every plugin or
 * script run under the profile gets. Their files (`sandboxes/profiles/<name>.yaml`) are read by
 * features/plugin-search/sandbox-profiles.ts.
 */
import { z } from 'zod';
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
