/**
 * The grant: the intersection of several permission sets (what the script or manifest
 * asks for, what the caller allows, and the sandbox profile's ceiling). A value is granted
 * only when every layer grants it; a deny in any layer wins. Messages are Deno's, so a
 * script sees the same `Deno.errors.NotCapable` text under `deno run` and here.
 */
import { DenoOpError } from '../broker/deno-error.ts';
import { GRANTABLE, type PermissionName, type PermissionRule, type PermissionSet, type PermissionState } from './descriptors.ts';
import { covers } from './matchers.ts';

export interface PermissionLayer {
  /** Where the set came from, for audit events: `flags`, `manifest`, `profile:community-draft`. */
  label: string;
  set: PermissionSet;
}

export interface PermissionAnswer {
  state: PermissionState;
  partial: boolean;
  /** The layer that refused, when the state is not `granted`. */
  refusedBy?: string;
}

function sideCovers(kind: PermissionName, side: true | readonly string[], value: string): boolean {
  return side === true || side.some((entry) => covers(kind, entry, value));
}

function ruleState(kind: PermissionName, rule: PermissionRule, value: string | undefined): PermissionAnswer {
  if (value === undefined) {
    if (rule.deny === true) return { state: 'denied', partial: false };
    const someDenied = rule.deny.length > 0;
    if (rule.allow === true) return { state: 'granted', partial: someDenied };
    return { state: 'prompt', partial: false };
  }
  if (sideCovers(kind, rule.deny, value)) return { state: 'denied', partial: false };
  // Deno's `partial`: granted, but something beneath the value is denied.
  if (sideCovers(kind, rule.allow, value)) return { state: 'granted', partial: rule.deny !== true && rule.deny.some((entry) => entry !== value && covers(kind, value, entry)) };
  return { state: 'prompt', partial: false };
}

export class PermissionGate {
  readonly layers: readonly PermissionLayer[];

  constructor(layers: readonly PermissionLayer[]) {
    this.layers = layers;
  }

  /** The combined state for a kind, or for one value of it. */
  query(kind: PermissionName, value?: string): PermissionAnswer {
    if (!GRANTABLE.has(kind)) return { state: 'denied', partial: false, refusedBy: 'kernel' };
    let partial = false;
    let prompt: string | undefined;
    for (const layer of this.layers) {
      const answer = ruleState(kind, layer.set[kind], value);
      if (answer.state === 'denied') return { state: 'denied', partial: false, refusedBy: layer.label };
      if (answer.state === 'prompt' && prompt === undefined) prompt = layer.label;
      partial ||= answer.partial;
    }
    if (prompt !== undefined) return { state: 'prompt', partial, refusedBy: prompt };
    return { state: 'granted', partial };
  }

  /** Throws `NotCapable` with Deno's message unless the value is granted by every layer. */
  check(kind: PermissionName, value?: string, display = value): void {
    const answer = this.query(kind, value);
    if (answer.state === 'granted' && (value !== undefined || !answer.partial)) return;
    // Deno names the value as the script wrote it (a relative path stays relative).
    throw new DenoOpError('NotCapable', notCapableMessage(kind, display));
  }
}

/** Deno's wording: `Requires read access to "/x", run again with the --allow-read flag`. */
export function notCapableMessage(kind: PermissionName, value?: string): string {
  const target = value === undefined ? '' : ` to "${value}"`;
  return `Requires ${kind} access${target}, run again with the --allow-${kind} flag`;
}
