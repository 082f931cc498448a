/**
 * What a grant means for the file system and network of a child process: the broker's
 * layered grant (every layer must allow, any deny wins) folded into plain path lists, which
 * is what bind mounts can express. `read` and `write` are path trees (a path covers itself and
 * everything beneath it, Deno's rule); `net` stays a question the kernel's proxy asks the
 * grant for each connection, so host patterns (`*.example.com`, a port or none) keep exactly
 * the broker's meaning.
 */
import type { PermissionRule } from '../../../kernel/permissions/descriptors.ts';
import { netCovers, pathCovers } from '../../../kernel/permissions/matchers.ts';

/** The layers of a grant, as the broker's PermissionGate holds them. */
export interface GrantLayers {
  readonly layers: readonly { label: string; set: Readonly<Record<'read' | 'write' | 'net', PermissionRule>> }[];
}

export interface PathGrant {
  /** every path is allowed (before denies) */
  all: boolean;
  /** the allowed trees, when not `all`: no entry lies beneath another */
  paths: string[];
  /** denied trees (any layer's deny); `true`: the whole kind is denied */
  deny: true | string[];
}

export interface GrantView {
  read: PathGrant;
  write: PathGrant;
  /** true: some host may be reached (the proxy then asks the grant per connection) */
  netAny: boolean;
  /** every host (`net: true` in every layer, nothing denied) */
  netAll: boolean;
  /** the hosts granted by name, when not netAll (intersection of the layers that list hosts) */
  netHosts: string[];
}

/** Drops entries that another entry already covers; sorted, so plans are stable. */
export function minimalTrees(paths: readonly string[]): string[] {
  const sorted = [...new Set(paths)].sort((a, b) => a.length - b.length || a.localeCompare(b));
  const kept: string[] = [];
  for (const p of sorted) if (!kept.some((k) => pathCovers(k, p))) kept.push(p);
  return kept.sort();
}

/** The trees both sides allow: where one covers the other, the narrower one. */
function intersect(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  for (const x of a) {
    for (const y of b) {
      if (pathCovers(x, y)) out.push(y);
      else if (pathCovers(y, x)) out.push(x);
    }
  }
  return minimalTrees(out);
}

function pathGrant(grant: GrantLayers, kind: 'read' | 'write'): PathGrant {
  let all = true;
  let paths: string[] = [];
  const deny: string[] = [];
  let denyAll = false;
  for (const layer of grant.layers) {
    const rule = layer.set[kind];
    if (rule.deny === true) denyAll = true;
    else deny.push(...rule.deny);
    if (rule.allow === true) continue;
    paths = all ? minimalTrees(rule.allow) : intersect(paths, rule.allow);
    all = false;
  }
  if (denyAll) return { all: false, paths: [], deny: true };
  return { all, paths: all ? [] : paths, deny: minimalTrees(deny) };
}

function netGrant(grant: GrantLayers): Pick<GrantView, 'netAny' | 'netAll' | 'netHosts'> {
  const listing: (readonly string[])[] = [];
  let denied = false;
  for (const layer of grant.layers) {
    const rule = layer.set.net;
    if (rule.deny === true) return { netAny: false, netAll: false, netHosts: [] };
    if (rule.deny.length > 0) denied = true;
    if (rule.allow !== true) listing.push(rule.allow);
  }
  if (listing.length === 0) return { netAny: true, netAll: !denied, netHosts: [] };
  // The entries every listing layer covers (`api.openai.com` under `*.openai.com`); the proxy
  // still asks the grant itself for each connection, so this list only says what is reachable.
  const candidates = [...new Set(listing.flat())];
  const hosts = candidates.filter((c) => listing.every((entries) => entries.some((e) => netCovers(e, c)))).sort();
  return { netAny: hosts.length > 0, netAll: false, netHosts: hosts };
}

export function grantView(grant: GrantLayers): GrantView {
  return { read: pathGrant(grant, 'read'), write: pathGrant(grant, 'write'), ...netGrant(grant) };
}

/** The hosts a subprocess under this grant may reach, as an executor's session states them: all, or these. */
export function subprocessNet(grant: GrantLayers): true | string[] {
  const view = netGrant(grant);
  return view.netAll || (view.netAny && view.netHosts.length === 0) ? true : view.netHosts;
}

/** Whether a path is allowed by a folded path grant (denies win). */
export function pathAllowed(g: PathGrant, p: string): boolean {
  if (g.deny === true) return false;
  if (g.deny.some((d) => pathCovers(d, p))) return false;
  return g.all || g.paths.some((a) => pathCovers(a, p));
}
