/**
 * `denials`: lists what the draft tried and was refused, from the capability broker's audit
 * of every run. A draft that stays within its grant is refused nothing; any denial fails the
 * check with the list (operation, permission, value), whatever the test then did with the
 * refusal. The full audit (grants too, capped per run) is the check's raw output.
 */
import type { CheckOutcome, GateContext } from '../context.ts';

export function denialsCheck(ctx: GateContext): CheckOutcome {
  const runs = ctx.passes.flat();
  if (runs.length === 0) return { status: 'unavailable', reason: 'no test ran, so nothing was tried', output: { denied: [], runs: [] } };
  const denied = runs.flatMap((r) => r.audit.filter((e) => e.decision === 'denied').map((e) => ({ test: r.test, pass: r.pass, op: e.op, permission: e.permission, value: e.value })));
  const deniedTotal = runs.reduce((n, r) => n + r.deniedCount, 0);
  const output = {
    denied_total: deniedTotal,
    denied,
    runs: runs.map((r) => ({ test: r.test, pass: r.pass, events: r.audit, events_not_kept: r.auditDropped })),
  };
  if (deniedTotal > 0) {
    const distinct = [...new Set(denied.map((d) => `${d.op} ${d.permission}${d.value === null ? '' : ` ${d.value}`}`))];
    return { status: 'failed', reason: `the draft was refused ${deniedTotal} capability request(s): ${distinct.slice(0, 20).join('; ')}${distinct.length > 20 ? '; ...' : ''}`, output };
  }
  const granted = runs.reduce((n, r) => n + r.audit.length + r.auditDropped, 0);
  return { status: 'passed', reason: `nothing was refused (${granted} capability request(s) granted)`, output };
}
