/**
 * Plugin manifests (`plugin.yaml`): what a plugin is, what it runs, and what it asks for.
 * Declared here and never mutated; the resolved plugin (path, grant, bundle digest) is a
 * separate type in the registry.
 */
import { z } from 'zod';
import { limitsSchema } from './sandbox-profile.ts';
import { permissionsSchema } from './permissions-schema.ts';
import { GATE_BINDINGS, GATE_CHECK_ID_PREFIX, gateCheckSectionSchema } from '../contracts/gate-check.ts';

export const PLUGIN_KINDS = ['skill', 'executor', 'budget-policy', 'persistence', 'phase-selector', 'tool', 'ledger', 'gate-check'] as const;

export const BINDING_NAMES = ['events', 'usage', 'ledger', 'memory', 'proposals', 'storage.files', 'storage.sqlite', 'storage.postgres', 'storage.ledger', 'workspace', ...GATE_BINDINGS] as const;

export const pluginManifestSchema = z.strictObject({
  $schema: z.string().optional(),
  id: z.string().regex(/^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/, 'dotted lowercase id such as executor.codex').describe('unique plugin id, e.g. executor.codex'),
  version: z.string().regex(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/, 'a semantic version such as 1.0.0'),
  kind: z.enum(PLUGIN_KINDS),
  entry: z.string().regex(/^[^/].*\.(ts|js|mts|mjs)$/, 'a relative .ts or .js file').refine((p) => !p.split('/').includes('..'), 'must stay inside the plugin folder'),
  description: z.string().min(1).max(1024),
  permissions: permissionsSchema.default({}),
  bindings: z.array(z.enum(BINDING_NAMES)).default([]).describe('kernel powers Deno has no word for, handed over only when declared and granted'),
  limits: limitsSchema.partial().default({}).describe('per-plugin limits; each is capped by the sandbox profile'),
  sandbox: z.string().regex(/^[a-z][a-z0-9-]*$/).default('trusted').describe('the sandbox profile the plugin runs under'),
  exports: z.array(z.string().regex(/^[A-Za-z_$][\w$]*$/)).min(1).describe('the functions the kernel may call'),
  gate_check: gateCheckSectionSchema.optional().describe('kind gate-check only: which earlier checks this one reads'),
}).superRefine((m, ctx) => {
  if (m.kind !== 'gate-check') {
    if (m.gate_check !== undefined) ctx.addIssue({ code: 'custom', path: ['gate_check'], message: `only gate-check plugins have a gate_check section, not ${m.kind} plugins` });
    return;
  }
  if (!m.id.startsWith(GATE_CHECK_ID_PREFIX) || m.id.split('.').length !== 2) ctx.addIssue({ code: 'custom', path: ['id'], message: `a gate-check plugin's id is "${GATE_CHECK_ID_PREFIX}<check name>" (the name profiles list)` });
  if (!m.exports.includes('check')) ctx.addIssue({ code: 'custom', path: ['exports'], message: 'a gate-check plugin exports "check"' });
});

export type PluginManifest = z.infer<typeof pluginManifestSchema>;
