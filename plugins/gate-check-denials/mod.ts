/**
 * gate-check.denials: lists every effect the draft's code attempted outside its grant (what
 * its plugin.yaml declares, within the gate's ceiling), from the capability broker's audit of
 * every run. The broker audits an attempt whatever answered it first (a refusal, bad
 * arguments, a program not found, the scratch quota, an API the sandbox does not implement,
 * a permission request), so a draft that catches the error learns nothing the evidence does
 * not show. Any such attempt fails the check; the reason names each kind attempted (read,
 * write, net, env, run, ffi, sys, import, a binding) with its first values, however many
 * other calls the draft made, and the output lists each (test, pass, op, value, rule).
 */
import { noRuns, result, runsOf, type GateCheckInput, type GateCheckResult } from '../gate-check-shared/results.ts';

/** Values named per kind in the reason; the output has them all. */
const VALUES_SHOWN = 5;

/** `run ×3 [run.output sh (before-check), Deno.kill (all) (unsupported)]`: one kind, its count and first attempts. */
function kindLine(kind: string, entries: { op: string; value: string | null; reason?: string }[]): string {
  const shown: string[] = [];
  for (const e of entries) {
    const line = `${e.op} ${e.value ?? '(all)'}${e.reason ? ` (${e.reason})` : ''}`;
    if (!shown.includes(line)) shown.push(line);
  }
  const more = shown.length > VALUES_SHOWN ? `, and ${shown.length - VALUES_SHOWN} more` : '';
  return `${kind} ×${entries.length} [${shown.slice(0, VALUES_SHOWN).join(', ')}${more}]`;
}

export function check(input: GateCheckInput): GateCheckResult {
  const none = noRuns(input, 'nothing was tried');
  if (none) return { ...none, output: { denied: [], denied_total: 0 } };
  const runs = [...runsOf(input, 'tests'), ...runsOf(input, 'determinism')];
  const denied = runs.flatMap((r) => r.audit.filter((e) => e.decision === 'denied').map((e) => ({ test: r.test, pass: r.pass, op: e.op, permission: e.permission, value: e.value, ...(e.reason ? { reason: e.reason } : {}) })));
  const deniedTotal = runs.reduce((n, r) => n + r.denied, 0);
  const byKind = new Map<string, typeof denied>();
  for (const d of denied) byKind.set(d.permission, [...(byKind.get(d.permission) ?? []), d]);
  const kinds = [...byKind.keys()];
  const output = { denied_total: deniedTotal, attempted_kinds: kinds, denied, runs: runs.map((r) => ({ test: r.test, pass: r.pass, events: r.audit.length, events_total: r.audit_total })) };
  if (deniedTotal > 0) {
    const lines = kinds.map((kind) => kindLine(kind, byKind.get(kind)!));
    return result('failed', `the draft attempted ${deniedTotal} effect(s) outside what its plugin.yaml declares within the gate's ceiling, each refused: ${lines.join('; ')}`, output);
  }
  const granted = runs.reduce((n, r) => n + r.audit_total, 0);
  return result('passed', `nothing was attempted outside the grant (${granted} capability request(s) granted)`, output);
}
