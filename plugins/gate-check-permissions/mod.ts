/**
 * gate-check.permissions: what the draft's plugin.yaml asks for stays within the gate:
 * permissions within the ceiling (Deno vocabulary, `${plugin}` being the draft's own
 * folder), only the kernel bindings the gate allows, limits no higher than the gate's, and
 * a sandbox profile no weaker in tier than the one the gate runs it under. A draft without
 * plugin.yaml asks for nothing; one whose plugin.yaml did not parse cannot be read.
 */
import { gate } from '../gate-check-shared/globals.ts';
import { earlier, result, type GateCheckInput, type GateCheckResult } from '../gate-check-shared/results.ts';

interface PluginDetail {
  present: boolean;
  valid?: boolean;
  manifest?: Record<string, unknown>;
  problem?: string;
}

export async function check(input: GateCheckInput): Promise<GateCheckResult> {
  const skillManifest = earlier(input, 'skill-manifest');
  const plugin = (skillManifest?.output as { plugin?: PluginDetail } | undefined)?.plugin;
  const ceiling = { ceiling: input.gate.ceiling, bindings_allowed: input.gate.bindings, limits: input.gate.limits };
  if (!plugin) return result('unavailable', 'skill-manifest recorded nothing about plugin.yaml', { plugin: null, ...ceiling });
  if (!plugin.present) return result('passed', 'no plugin.yaml: the draft asks for no permissions', { plugin: null, ...ceiling, problems: [] });
  if (!plugin.valid || !plugin.manifest) {
    return result('unavailable', `plugin.yaml did not validate, so its requests cannot be read (${plugin.problem ?? 'invalid'})`, { plugin: 'invalid', ...ceiling });
  }
  const m = plugin.manifest;
  const { problems } = await gate.manifest.grant(m);
  const output = { plugin: m.id, requested: { permissions: m.permissions, bindings: m.bindings, limits: m.limits, sandbox: m.sandbox }, ...ceiling, problems };
  if (problems.length > 0) return result('failed', problems.join('; '), output);
  return result('passed', `plugin.yaml asks for nothing beyond the "${input.gate.profile}" gate`, output);
}
