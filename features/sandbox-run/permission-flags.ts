/**
 * Deno's permission flags, parsed the way `deno run` parses them:
 * `--allow-read[=a,b]`, `--allow-write`, `--allow-net[=host[:port]]`, `--allow-env[=VARS]`,
 * `--allow-run[=cmds]`, `--allow-sys`, `-A`/`--allow-all`, the short forms `-R -W -N -E -S`,
 * and the `--deny-*` forms, which win over any allow: what `sandbox run` and `sandbox test` take.
 *
 * Each value is spelled as the gate keeps it (kernel/permissions/grant-values.ts): paths made
 * absolute against `cwd` here, once, as Deno does at start-up.
 */
import { kernelError } from '../../kernel/errors.ts';
import type { PermissionLayer } from '../../kernel/permissions/gate.ts';
import { grantValues } from '../../kernel/permissions/grant-values.ts';
import { PERMISSION_NAMES, emptyPermissionSet, type PermissionName, type PermissionRule, type PermissionSet, type RuleSide } from '../../kernel/permissions/descriptors.ts';

const SHORT_FLAGS: Record<string, PermissionName> = { '-R': 'read', '-W': 'write', '-N': 'net', '-E': 'env', '-S': 'sys' };

/** True when `arg` is one of the permission flags this module understands. */
export function isPermissionFlag(arg: string): boolean {
  if (arg === '-A' || arg === '--allow-all' || arg in SHORT_FLAGS) return true;
  const match = /^--(allow|deny)-([a-z]+)(=.*)?$/.exec(arg);
  return match !== null && (PERMISSION_NAMES as readonly string[]).includes(match[2]!);
}

function mergeSide(current: RuleSide, values: readonly string[] | true): RuleSide {
  if (current === true || values === true) return true;
  return [...current, ...values];
}

/**
 * Builds a permission set from flags. Unknown `--allow-*` kinds are refused with the flag
 * named; an empty value list (`--allow-read=`) is refused too, as Deno does.
 */
export function parsePermissionFlags(flags: readonly string[], cwd: string): PermissionSet {
  const rules: Record<PermissionName, PermissionRule> = { ...emptyPermissionSet() };
  const add = (kind: PermissionName, side: 'allow' | 'deny', values: readonly string[] | true): void => {
    const rule = rules[kind];
    rules[kind] = { ...rule, [side]: mergeSide(rule[side], values) };
  };
  for (const flag of flags) {
    if (flag === '-A' || flag === '--allow-all') {
      for (const kind of PERMISSION_NAMES) add(kind, 'allow', true);
      continue;
    }
    const short = SHORT_FLAGS[flag];
    if (short) {
      add(short, 'allow', true);
      continue;
    }
    const match = /^--(allow|deny)-([a-z]+)(?:=(.*))?$/.exec(flag);
    if (!match || !(PERMISSION_NAMES as readonly string[]).includes(match[2]!)) {
      throw kernelError('RTC_ERR_PERMISSION_FLAG', `unknown permission flag "${flag}"`, { details: { flag } });
    }
    const side = match[1] as 'allow' | 'deny';
    const kind = match[2] as PermissionName;
    if (match[3] === undefined) {
      add(kind, side, true);
      continue;
    }
    const values = match[3].split(',').map((v) => v.trim()).filter((v) => v.length > 0);
    if (values.length === 0) {
      throw kernelError('RTC_ERR_PERMISSION_FLAG', `"${flag}" names no values; use --${side}-${kind} for all`, { details: { flag } });
    }
    // `run` names are resolved to programs when the run's grant is built (kernel/broker/context.ts).
    add(kind, side, values.flatMap((v) => grantValues(kind, v, cwd)));
  }
  return rules;
}

/** The request layer of a `sandbox run`: the flags' set, marked when it is Deno's `--allow-all`. */
export function flagsLayer(flags: readonly string[], cwd: string): PermissionLayer {
  return { label: 'flags', set: parsePermissionFlags(flags, cwd), ...(flags.some((f) => f === '-A' || f === '--allow-all') ? { allowAll: true } : {}) };
}
