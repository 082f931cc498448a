/**
 * One gate run: evaluates a skill draft under a gate profile and writes a self-contained
 * evidence package to a new folder:
 *
 *   <out>/manifest.json            inputs, rules, each check's result, verdict, inventory
 *   <out>/source/<folder>/         the snapshot every check read
 *   <out>/build/                   the fresh bundle cache (bundles are executable artifacts)
 *   <out>/scratch/<pass>/<test>/   the only place the draft's tests could write
 *   <out>/checks/<nn>-<name>.json  each check's raw output
 *
 * Whatever the draft does (escape attempts, loops, floods, bad files), each check ends as
 * passed, failed or unavailable with a reason and the package is complete; the kernel
 * carries on. The verdict: `rejected` if any check failed, else `incomplete` if a required
 * check is unavailable (or the gate itself broke), else `accepted`, with the checks the
 * profile may leave unavailable published as limitations. The gate never enables a skill.
 */
import { existsSync, mkdirSync, readdirSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sha256 } from '../../kernel/build/bundle.ts';
import { kernelError } from '../../kernel/errors.ts';
import { isInside } from '../skills/read-reference.ts';
import { KERNEL_VERSION, PROJECT_ROOT } from '../../kernel/version.ts';
import { inventory } from './evidence/inventory.ts';
import { EVIDENCE_FORMAT, MANIFEST_FILE, VERDICT_EXIT, type CheckRecord, type EvidenceManifest, type Verdict } from './evidence/manifest-schema.ts';
import { buildCheck } from './checks/build.ts';
import { denialsCheck } from './checks/denials.ts';
import { determinismCheck } from './checks/determinism.ts';
import { permissionsCheck } from './checks/permissions.ts';
import { referenceRuntimeCheck } from './checks/reference-runtime.ts';
import { resourceLimitsCheck } from './checks/resource-limits.ts';
import { skillManifestCheck } from './checks/skill-manifest.ts';
import { snapshotCheck } from './checks/snapshot.ts';
import { testsCheck } from './checks/tests.ts';
import { GateContext, type CheckOutcome } from './context.ts';
import type { GateCheckName } from './profile-schema.ts';
import { GATES_DIR, loadGateProfile } from './profiles.ts';
import { proposeSkillDraft, type ProposalOutcome } from './propose.ts';
import type { ReviewPolicy } from '../../kernel/review/index.ts';

const CHECKS: Readonly<Record<GateCheckName, (ctx: GateContext) => CheckOutcome | Promise<CheckOutcome>>> = {
  snapshot: snapshotCheck,
  'skill-manifest': skillManifestCheck,
  permissions: permissionsCheck,
  build: buildCheck,
  tests: testsCheck,
  determinism: determinismCheck,
  'resource-limits': resourceLimitsCheck,
  denials: denialsCheck,
  'reference-runtime': referenceRuntimeCheck,
};

export interface GateOptions {
  profile: string;
  target: string;
  out: string;
  /** the real Deno for reference-runtime; null: this host has none */
  deno: string | null;
  /** a persona state folder (`<state>/<persona>`) whose review queue gets accepted drafts */
  reviewPersonaDir?: string;
  /** that persona's review backpressure (default: the queue's default policy) */
  reviewPolicy?: ReviewPolicy;
  /** logical time for the proposal, epoch ms (default: now) */
  now?: number;
  gatesDir?: string;
}

export interface GateReport {
  verdict: Verdict;
  exitStatus: 0 | 1 | 3;
  out: string;
  manifestFile: string;
  manifestDigest: string;
  manifest: EvidenceManifest;
  proposal: ProposalOutcome;
}

/** The output folder must be new or empty: evidence is never mixed with what was there. */
function prepareOut(out: string): void {
  if (existsSync(out)) {
    if (!statSync(out).isDirectory()) throw kernelError('RTC_ERR_GATE_OUT_NOT_EMPTY', `--out ${out} exists and is not a folder`, { details: { out } });
    if (readdirSync(out).length > 0) throw kernelError('RTC_ERR_GATE_OUT_NOT_EMPTY', `--out ${out} is not empty; give a new or empty folder`, { details: { out } });
  }
  mkdirSync(out, { recursive: true });
}

function resolveTarget(target: string): string {
  if (!existsSync(target)) throw kernelError('RTC_ERR_GATE_TARGET', `--target ${target} does not exist`, { details: { target } });
  if (!statSync(target).isDirectory()) throw kernelError('RTC_ERR_GATE_TARGET', `--target ${target} is not a folder (a skill draft is a folder with a SKILL.md)`, { details: { target } });
  return realpathSync(target);
}

function verdictOf(records: readonly (CheckRecord & { internal: boolean })[]): Verdict {
  if (records.some((r) => r.status === 'failed')) return 'rejected';
  if (records.some((r) => r.status === 'unavailable' && (r.required || r.internal))) return 'incomplete';
  return 'accepted';
}

function writeJson(file: string, value: unknown): string {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  writeFileSync(file, text);
  return `sha256:${sha256(text)}`;
}

async function runCheck(name: GateCheckName, ctx: GateContext): Promise<CheckOutcome> {
  try {
    return await CHECKS[name](ctx);
  } catch (error) {
    // A fault of the gate, not of the draft: recorded, never tolerated as a limitation.
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    return { status: 'unavailable', reason: `the gate failed while running this check: ${message.split('\n')[0]}`, output: { internal_error: message }, internal: true };
  }
}

export async function runGate(options: GateOptions): Promise<GateReport> {
  const gate = loadGateProfile(options.profile, options.gatesDir ?? GATES_DIR);
  const target = resolveTarget(path.resolve(options.target));
  const outAbs = path.resolve(options.out);
  // The scratch and snapshot paths inside --out become Deno permission flag values, which commas would split.
  if (outAbs.includes(',')) throw kernelError('RTC_ERR_GATE_TARGET', `--out ${outAbs} contains a comma, which a Deno permission flag cannot carry; use another folder`);
  if (isInside(target, outAbs)) throw kernelError('RTC_ERR_GATE_TARGET', `--out ${outAbs} is inside the draft folder ${target}; the snapshot would copy itself`);
  prepareOut(outAbs);
  const out = realpathSync(outAbs);
  if (isInside(out, target)) throw kernelError('RTC_ERR_GATE_TARGET', `the draft folder ${target} is inside --out ${out}`);

  const ctx = new GateContext(gate, target, out, options.deno);
  for (const dir of [ctx.dirs.source, ctx.dirs.build, ctx.dirs.scratch, ctx.dirs.checks]) mkdirSync(dir, { recursive: true });

  const allowed = new Set<string>(gate.profile.may_be_unavailable);
  const records: (CheckRecord & { internal: boolean })[] = [];
  try {
    for (const [i, name] of gate.profile.checks.entries()) {
      const outcome = await runCheck(name, ctx);
      const output = `checks/${String(i + 1).padStart(2, '0')}-${name}.json`;
      const digest = writeJson(path.join(out, output), { check: name, status: outcome.status, reason: outcome.reason, output: outcome.output });
      records.push({ name, status: outcome.status, reason: outcome.reason, required: !allowed.has(name), output, sha256: digest, internal: outcome.internal === true });
    }
  } finally {
    // Host processes write their code caches until closed: the inventory comes after.
    await ctx.close();
  }

  const verdict = verdictOf(records);
  const exitStatus = VERDICT_EXIT[verdict];
  const reviewable = verdict === 'accepted' && ctx.skillName !== undefined;
  const proposalNote =
    verdict !== 'accepted'
      ? `none: the verdict is ${verdict}`
      : options.reviewPersonaDir === undefined
        ? 'review queue not available'
        : `submitted after this manifest was written to the review queue of ${path.resolve(options.reviewPersonaDir)} (its proposal log records the outcome)`;
  const manifest: EvidenceManifest = {
    format: EVIDENCE_FORMAT,
    kind: 'gate',
    created_at: new Date().toISOString(),
    kernel: { version: KERNEL_VERSION },
    input: {
      path: target,
      name: ctx.name,
      digest: ctx.snapshot?.digest ?? `sha256:${sha256('')}`,
      copy: path.relative(out, ctx.dirs.draft).split(path.sep).join('/'),
      files: ctx.snapshot?.entries ?? [],
    },
    gate: {
      profile: gate.profile.name,
      file: path.relative(PROJECT_ROOT, gate.file),
      digest: gate.digest,
      sandbox: { name: gate.sandbox.name, file: path.relative(PROJECT_ROOT, gate.sandboxFile), digest: gate.sandboxDigest },
      limits: gate.limits,
      checks: [...gate.profile.checks],
      may_be_unavailable: [...gate.profile.may_be_unavailable],
    },
    checks: records.map(({ internal: _internal, ...record }) => record),
    limitations: records.filter((r) => r.status === 'unavailable' && !r.required).map((r) => ({ check: r.name, reason: r.reason })),
    verdict,
    exit_status: exitStatus,
    proposal: proposalNote,
    files: inventory(out, new Set([MANIFEST_FILE])),
  };
  const manifestFile = path.join(out, MANIFEST_FILE);
  const tmp = path.join(out, `.${MANIFEST_FILE}.tmp`);
  const manifestDigest = writeJson(tmp, manifest);
  renameSync(tmp, manifestFile);

  let proposal: ProposalOutcome = { status: 'not-proposed', reason: proposalNote };
  if (reviewable && options.reviewPersonaDir !== undefined) {
    proposal = await proposeSkillDraft({
      personaDir: options.reviewPersonaDir,
      ...(options.reviewPolicy === undefined ? {} : { policy: options.reviewPolicy }),
      skill: ctx.skillName!,
      manifestFile,
      manifestDigest,
      profile: gate.profile.name,
      now: options.now ?? Date.now(),
    });
  }
  return { verdict, exitStatus, out, manifestFile, manifestDigest, manifest, proposal };
}
