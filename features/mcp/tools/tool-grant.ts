/**
 * What a tool may do, as `tools list` shows it: its grant folded from the layers the broker
 * checks (the tool's manifest ∩ the persona's `allow` ∩ its sandbox profile's ceiling), per
 * kind: `true` (anything), or the paths, hosts, variables and programs every layer allows.
 * A kind any layer denies outright is `[]`. It is a summary for people: the broker still
 * decides each access itself, with Deno's matching (a host's port, a program's path).
 */
import type { PermissionName, PermissionSet } from '../../../kernel/permissions/descriptors.ts';
import type { ToolGrant } from '../../persona/tools/runners.ts';
import { grantView, type PathGrant } from '../../../sandboxes/subprocess/os-sandbox/grant-view.ts';

interface Layer {
  label: string;
  set: PermissionSet;
}

function paths(g: PathGrant): true | string[] {
  if (g.deny === true) return [];
  return g.all ? true : g.paths;
}

/** Names every layer allows (env variables, programs): exact names, `true` where every layer allows all. */
function names(layers: readonly Layer[], kind: PermissionName): true | string[] {
  let out: true | string[] = true;
  for (const layer of layers) {
    const rule = layer.set[kind];
    if (rule.deny === true) return [];
    if (rule.allow === true) continue;
    const allowed: readonly string[] = rule.allow;
    out = out === true ? [...allowed] : out.filter((n) => allowed.includes(n));
  }
  return out === true ? true : [...new Set(out)].sort();
}

export function toolGrant(layers: readonly Layer[], profile: { name: string; tier: string }): ToolGrant {
  const view = grantView({ layers });
  return {
    read: paths(view.read),
    write: paths(view.write),
    net: view.netAll ? true : view.netHosts,
    env: names(layers, 'env'),
    run: names(layers, 'run'),
    profile: profile.name,
    tier: profile.tier,
  };
}
