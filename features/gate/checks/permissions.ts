/**
 * `permissions`: what the draft's plugin.yaml asks for stays within the gate: permissions
 * within the ceiling (Deno vocabulary, `${plugin}` being the draft's own folder), only the
 * kernel bindings the gate allows, limits no higher than the gate's, and a sandbox profile
 * no weaker in tier than the one the gate ran it under. A draft without plugin.yaml asks
 * for nothing.
 */
import { isKernelError } from '../../../kernel/errors.ts';
import { loadSandboxProfile } from '../../../kernel/manifest/sandbox-profile.ts';
import { beyondCeiling } from '../ceiling.ts';
import type { CheckOutcome, GateContext } from '../context.ts';

export function permissionsCheck(ctx: GateContext): CheckOutcome {
  const { profile, limits, sandbox } = ctx.gate;
  if (ctx.pluginError !== undefined) {
    return { status: 'unavailable', reason: `plugin.yaml did not validate, so its requests cannot be read (${ctx.pluginError})`, output: { plugin: 'invalid' } };
  }
  if (!ctx.plugin) {
    return { status: 'passed', reason: 'no plugin.yaml: the draft asks for no permissions', output: { plugin: null, ceiling: profile.ceiling, problems: [] } };
  }
  const manifest = ctx.plugin;
  const vars = { plugin: ctx.dirs.draft, scratch: ctx.dirs.scratch };
  const problems: string[] = [];
  const over = beyondCeiling(manifest.permissions, profile.ceiling, ctx.dirs.draft, vars);
  if (over.length > 0) problems.push(`permissions: asks for ${over.join(', ')} beyond the "${profile.name}" gate ceiling`);
  const extraBindings = manifest.bindings.filter((b) => !profile.bindings.includes(b));
  if (extraBindings.length > 0) problems.push(`bindings: asks for ${extraBindings.join(', ')}, which the "${profile.name}" gate does not allow`);
  for (const [key, value] of Object.entries(manifest.limits)) {
    const cap = limits[key as keyof typeof limits];
    if (value !== undefined && value > cap) problems.push(`limits.${key}: asks for ${value}, above the gate's ${cap}`);
  }
  try {
    const declared = loadSandboxProfile(manifest.sandbox);
    if (declared.tier === 'in-process' && sandbox.tier === 'process') {
      problems.push(`sandbox: asks for "${declared.name}" (in-process isolates, for first-party code); a draft evaluated under "${sandbox.name}" runs in the process tier`);
    }
  } catch (error) {
    if (!isKernelError(error)) throw error;
    problems.push(`sandbox: ${error.message}`);
  }
  const output = { plugin: manifest.id, requested: { permissions: manifest.permissions, bindings: manifest.bindings, limits: manifest.limits, sandbox: manifest.sandbox }, ceiling: profile.ceiling, bindings_allowed: profile.bindings, limits: ctx.gate.limits, problems };
  if (problems.length > 0) return { status: 'failed', reason: problems.join('; '), output };
  return { status: 'passed', reason: `plugin.yaml asks for nothing beyond the "${profile.name}" gate`, output };
}
