/**
 * The grant: the intersection of several permission sets (what the script or manifest
 * asks for, what the caller allows, and the sandbox profile's ceiling). A value is granted
 * only when every layer grants it; a deny in any layer wins. Messages are Deno's, so a
 * script sees the same `Deno.errors.NotCapable` text under `deno run` and here.
 *
 * The gate is the run's live grant: `Deno.permissions.revoke` narrows it (Deno's rule,
 * applied to every layer), and every later check and query sees the narrower grant.
 */
import { Refusal } from '../broker/refusal.ts';
import { GRANTABLE, type PermissionName, type PermissionRule, type PermissionSet, type PermissionState } from './descriptors.ts';
import { covers } from './matchers.ts';

export interface PermissionLayer {
  /** Where the set came from, for audit events: `flags`, `manifest`, `profile:community-draft`. */
  label: string;
  set: PermissionSet;
  /** The layer is Deno's `--allow-all` (`-A`), which special files (/proc, /sys, /dev) require. */
  allowAll?: boolean;
}

export interface PermissionAnswer {
  state: PermissionState;
  partial: boolean;
  /** The layer that refused, when the state is not `granted`. */
  refusedBy?: string;
}

function sideCovers(kind: PermissionName, side: true | readonly string[], value: string, which: 'allow' | 'deny'): boolean {
  return side === true || side.some((entry) => covers(kind, entry, value, which));
}

/** `aliases` are other names of the same thing (a command's canonical path): a deny of any of them counts. */
function ruleState(kind: PermissionName, rule: PermissionRule, value: string | undefined, aliases: readonly string[]): PermissionAnswer {
  if (value === undefined) {
    if (rule.deny === true) return { state: 'denied', partial: false };
    const someDenied = rule.deny.length > 0;
    if (rule.allow === true) return { state: 'granted', partial: someDenied };
    return { state: 'prompt', partial: false };
  }
  if (sideCovers(kind, rule.deny, value, 'deny') || aliases.some((alias) => sideCovers(kind, rule.deny, alias, 'deny'))) return { state: 'denied', partial: false };
  // Deno's `partial`: granted, but something beneath the value is denied.
  if (sideCovers(kind, rule.allow, value, 'allow')) return { state: 'granted', partial: rule.deny !== true && rule.deny.some((entry) => entry !== value && covers(kind, value, entry, 'deny')) };
  return { state: 'prompt', partial: false };
}

function wholly(rule: PermissionRule): boolean {
  return rule.allow === true && rule.deny !== true && rule.deny.length === 0;
}

export class PermissionGate {
  #layers: readonly PermissionLayer[];

  constructor(layers: readonly PermissionLayer[]) {
    this.#layers = [...layers];
  }

  get layers(): readonly PermissionLayer[] {
    return this.#layers;
  }

  /**
   * Replaces kinds of the layer labelled `label` (a manifest re-expanded with the session now
   * running: its read and write); the other layers, and so the persona's ceiling and what was
   * revoked there, stay as they are. False when no layer has that label.
   */
  replaceRules(label: string, rules: Partial<Record<PermissionName, PermissionRule>>): boolean {
    const at = this.#layers.findIndex((layer) => layer.label === label);
    if (at < 0) return false;
    const layers = [...this.#layers];
    layers[at] = { ...layers[at]!, set: { ...layers[at]!.set, ...rules } };
    this.#layers = layers;
    return true;
  }

  /** The combined state for a kind, or for one value of it. */
  query(kind: PermissionName, value?: string, aliases: readonly string[] = []): PermissionAnswer {
    if (!GRANTABLE.has(kind)) return { state: 'denied', partial: false, refusedBy: 'kernel' };
    let partial = false;
    let prompt: string | undefined;
    for (const layer of this.#layers) {
      const answer = ruleState(kind, layer.set[kind], value, aliases);
      if (answer.state === 'denied') return { state: 'denied', partial: false, refusedBy: layer.label };
      if (answer.state === 'prompt' && prompt === undefined) prompt = layer.label;
      partial ||= answer.partial;
    }
    if (prompt !== undefined) return { state: 'prompt', partial, refusedBy: prompt };
    return { state: 'granted', partial };
  }

  /** Throws a `NotCapable` Refusal with Deno's message unless the value is granted by every layer. */
  check(kind: PermissionName, value?: string, display = value, aliases: readonly string[] = []): void {
    const answer = this.query(kind, value, aliases);
    if (answer.state === 'granted' && (value !== undefined || !answer.partial)) return;
    // Deno names the value as the script wrote it (a relative path stays relative).
    throw new Refusal(kind, value ?? null, notCapableMessage(kind, display));
  }

  /**
   * Deno's "was --allow-all passed": the request was `-A` and no layer narrows any kind.
   * A grant of every kind one by one is not `-A`, as in Deno.
   */
  allowsAll(): boolean {
    return this.#layers.some((layer) => layer.allowAll === true) && this.#layers.every((layer) => [...GRANTABLE].every((kind) => wholly(layer.set[kind])));
  }

  /**
   * `Deno.permissions.revoke`, Deno's rule in every layer: without a value the kind is
   * revoked wholly; with one, every allow entry that covers the value is removed (revoking
   * `/a/b` under `--allow-read=/a` removes `/a`), and a grant of the whole kind is kept (as
   * `deno run -R` keeps it). Returns the state after the revocation.
   */
  revoke(kind: PermissionName, value?: string): PermissionAnswer {
    this.#layers = this.#layers.map((layer) => {
      const rule = layer.set[kind];
      let allow = rule.allow;
      if (value === undefined) allow = [];
      else if (allow !== true) allow = allow.filter((entry) => !covers(kind, entry, value, 'allow'));
      if (allow === rule.allow || (Array.isArray(allow) && Array.isArray(rule.allow) && allow.length === rule.allow.length)) return layer;
      return { ...layer, set: { ...layer.set, [kind]: { ...rule, allow } } };
    });
    return this.query(kind, value);
  }
}

/** Deno's wording: `Requires read access to "/x", run again with the --allow-read flag`. */
export function notCapableMessage(kind: PermissionName | 'all', value?: string): string {
  const target = value === undefined ? '' : ` to "${value}"`;
  return `Requires ${kind} access${target}, run again with the --allow-${kind} flag`;
}
