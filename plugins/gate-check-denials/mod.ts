/**
 * gate-check.denials: lists what the draft tried and was refused, from the capability
 * broker's audit of every run. A draft that stays within its grant is refused nothing; any
 * denial fails the check with the list (operation, permission, value, and the rule when it
 * is more than the plain grant), whatever the test then did with the refusal.
 */
import { noRuns, result, runsOf, type GateCheckInput, type GateCheckResult } from '../gate-check-shared/results.ts';

export function check(input: GateCheckInput): GateCheckResult {
  const none = noRuns(input, 'nothing was tried');
  if (none) return { ...none, output: { denied: [], denied_total: 0 } };
  const runs = [...runsOf(input, 'tests'), ...runsOf(input, 'determinism')];
  const denied = runs.flatMap((r) => r.audit.filter((e) => e.decision === 'denied').map((e) => ({ test: r.test, pass: r.pass, op: e.op, permission: e.permission, value: e.value, ...(e.reason ? { reason: e.reason } : {}) })));
  const deniedTotal = runs.reduce((n, r) => n + r.denied, 0);
  const output = { denied_total: deniedTotal, denied, runs: runs.map((r) => ({ test: r.test, pass: r.pass, events: r.audit.length, events_total: r.audit_total })) };
  if (deniedTotal > 0) {
    const distinct = [...new Set(denied.map((d) => `${d.op} ${d.permission}${d.value === null ? '' : ` ${d.value}`}${d.reason ? ` (${d.reason})` : ''}`))];
    return result('failed', `the draft was refused ${deniedTotal} capability request(s): ${distinct.slice(0, 20).join('; ')}${distinct.length > 20 ? '; ...' : ''}`, output);
  }
  const granted = runs.reduce((n, r) => n + r.audit_total, 0);
  return result('passed', `nothing was refused (${granted} capability request(s) granted)`, output);
}
