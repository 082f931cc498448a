/**
 * Runs one check plugin of a gate profile: a fresh instance of its plugin in its own isolate
 * under its manifest's sandbox profile, granted what its manifest asks ∩ what the gate
 * profile allows it (`${draft}` the snapshot, `${plugin}` its own folder) ∩ its profile's
 * ceiling, with the `gate.*` bindings it declares and the profile grants, and no
 * environment. Its one call, `check(input)`, is answered by the gate-check contract's zod
 * schema before anything is written.
 *
 * A check that throws, breaks a limit, answers outside the contract, or during which a
 * binding hit a fault of the gate, is `unavailable` and marked internal: never a pass, and
 * never tolerated as a limitation.
 */
import type { AuditEvent } from '../../kernel/broker/op.ts';
import { gateCheckInputSchema, gateCheckResultSchema, type GateCheckInput, type GateCheckResult } from '../../kernel/contracts/gate-check.ts';
import { describeZodError } from '../../kernel/manifest/load.ts';
import { errorLine } from '../../kernel/errors.ts';
import { toPermissionSet } from '../../kernel/manifest/permissions-schema.ts';
import { PluginInstance } from '../plugin-host/plugin-instance.ts';
import type { SandboxKit } from '../../kernel/sandbox.ts';
import { gateBindingsFor } from './bindings.ts';
import type { ResolvedCheck } from './profiles.ts';
import type { GateSession } from './session.ts';

/** Wall time a check may spend awaiting one run of the draft, past the run's own limit. */
const RUN_GRACE_MS = 10_000;
/** Runs a check may ask for per test file: two sandbox passes and one under Deno, with room to spare. */
const RUNS_PER_TEST = 4;
/** Capability decisions of the check itself kept in its record. */
const MAX_CHECK_AUDIT = 200;

export interface CheckRun {
  result: GateCheckResult;
  /** set when the gate itself broke while running the check */
  internal: boolean;
  /** the check's own capability decisions (what it read, which bindings it used) */
  audit: { op: string; permission: string; value: string | null; decision: string }[];
  bundle: string | null;
  grant: { allow: unknown; bindings: string[] };
}

/**
 * The wall time the check's call may take: its own limit, plus, when it may run the draft,
 * room for every run it may ask for (the isolate's wall clock counts time spent awaiting).
 */
function wallFor(session: GateSession, check: ResolvedCheck, base: number): number {
  const runs = check.plugin.manifest.bindings.filter((b) => b === 'gate.sandbox' || b === 'gate.deno').length;
  if (runs === 0) return base;
  return base + runs * RUNS_PER_TEST * session.gate.profile.draft.max_tests * (session.gate.limits.wallMs + RUN_GRACE_MS);
}

function unavailable(reason: string, output: unknown): GateCheckResult {
  return { status: 'unavailable', reason, output, not_evaluated: [] };
}

export function checkInput(session: GateSession, check: ResolvedCheck, earlier: ReadonlyMap<string, GateCheckResult>): GateCheckInput {
  const snapshot = session.snapshot!;
  const { profile, sandbox, limits } = session.gate;
  const given: GateCheckInput['earlier'] = {};
  for (const name of check.reads) {
    const r = earlier.get(name);
    if (r) given[name] = { status: r.status, reason: r.reason, output: r.output };
  }
  return gateCheckInputSchema.parse({
    check: check.name,
    draft: { name: session.name, root: session.dirs.draft, digest: snapshot.digest, files: snapshot.entries, problems: snapshot.problems },
    gate: { profile: profile.name, sandbox: { name: sandbox.name, tier: sandbox.tier }, ceiling: profile.ceiling, bindings: profile.bindings, limits, draft: profile.draft },
    earlier: given,
  });
}

export async function runCheck(session: GateSession, check: ResolvedCheck, kit: SandboxKit, earlier: ReadonlyMap<string, GateCheckResult>): Promise<CheckRun> {
  const { plugin, entry } = check;
  const vars = { plugin: plugin.dir, draft: session.dirs.draft };
  const audit: CheckRun['audit'] = [];
  const faults: string[] = [];
  const base = { ...plugin.profile.limits, ...plugin.manifest.limits };
  const tuned = { ...plugin, manifest: { ...plugin.manifest, limits: { ...plugin.manifest.limits, wallMs: wallFor(session, check, base.wallMs) } } };
  const instance = new PluginInstance(tuned, {
    kit,
    allow: toPermissionSet(entry.allow, plugin.dir, vars),
    vars,
    cwd: session.dirs.draft,
    env: {},
    audit: (event: AuditEvent) => {
      if (audit.length < MAX_CHECK_AUDIT) audit.push({ op: event.op, permission: event.permission, value: event.value, decision: event.decision });
    },
  });
  const label = `gate profile "${session.gate.profile.name}" (${check.field}.bindings)`;
  instance.broker.context.bindings = { grantor: session.gate.profile.name, grantorLabel: label, declared: plugin.manifest.bindings, granted: entry.bindings, impl: { gate: gateBindingsFor(session, faults) } };
  const grant = { allow: entry.allow, bindings: plugin.manifest.bindings.filter((b) => (entry.bindings as string[]).includes(b)) };
  const done = (result: GateCheckResult, internal: boolean): CheckRun => ({ result, internal, audit, bundle: instance.bundle ? `sha256:${instance.bundle.digest}` : null, grant });
  try {
    let answer: unknown;
    try {
      answer = await instance.call('check', checkInput(session, check, earlier));
    } catch (error) {
      return done(unavailable(`the check plugin ${plugin.manifest.id} failed: ${errorLine(error)}`, { internal_error: errorLine(error), faults }), true);
    }
    const parsed = gateCheckResultSchema.safeParse(answer);
    if (!parsed.success) {
      const { field, reason } = describeZodError(parsed.error);
      return done(unavailable(`RTC_ERR_GATE_CHECK_RESULT: ${plugin.manifest.id} returned a bad value at ${field}: ${reason}`, { internal_error: `bad result at ${field}: ${reason}` }), true);
    }
    if (faults.length > 0) {
      // The check's answer rests on a binding that broke: it cannot stand as a verdict either way.
      return done(unavailable(`the gate failed while serving ${plugin.manifest.id}: ${faults[0]!.split('\n')[0]}`, { internal_error: faults, answer: parsed.data }), true);
    }
    return done(parsed.data, false);
  } finally {
    instance.dispose();
  }
}
