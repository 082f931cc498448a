/**
 * One gate run: evaluates a skill draft under a gate profile and writes a self-contained
 * evidence package to a new folder:
 *
 *   <out>/manifest.json            inputs, rules, each check's result, limitations, verdict, inventory
 *   <out>/source/<folder>/         the snapshot every check read
 *   <out>/build/                   the fresh bundle cache (bundles are executable artifacts)
 *   <out>/scratch/<pass>/<test>/   the only place the draft's tests could write
 *   <out>/checks/<nn>-<name>.json  each check's raw output, with its plugin and grant
 *
 * The gate itself only snapshots the draft and runs the profile's check plugins in order
 * (run-check.ts), each in its own isolate with its own grant. Whatever the draft does
 * (escape attempts, loops, floods, bad files), each check ends as passed, failed,
 * not-applicable or unavailable with a reason, and the package is complete; the kernel
 * carries on. The verdict: `rejected` if any check failed, else `incomplete` if a required
 * check is unavailable (or the gate itself broke), else `accepted`. Every verdict lists what
 * it does not vouch for: checks left unavailable or not applicable, what each check did not
 * evaluate, and the intent of the prose, which no check proves safe. The gate never enables
 * a skill.
 */
import { existsSync, mkdirSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { replaceFileDurably } from '../../kernel/storage/durable-files.ts';
import path from 'node:path';
import { sha256 } from '../../sandboxes/loader/bundle.ts';
import type { GateCheckResult } from '../../kernel/contracts/gate-check.ts';
import { kernelError } from '../../kernel/errors.ts';
import type { ReviewPolicy } from '../review-queue/index.ts';
import { scrubber } from '../secret-values/secret-values.ts';
import { KERNEL_VERSION, PROJECT_ROOT } from '../../kernel/version.ts';
import { defaultSandboxKit } from '../../sandboxes/index.ts';
import { GATE_BINDING_OPS } from './binding-ops.ts';
import { isInside } from '../skills/read-reference.ts';
import { inventory } from './evidence/inventory.ts';
import { EVIDENCE_FORMAT, MANIFEST_FILE, VERDICT_EXIT, type CheckRecord, type EvidenceManifest, type Limitation, type Verdict } from './evidence/manifest-schema.ts';
import { GATES_DIR, loadGateProfile, type ResolvedCheck } from './profiles.ts';
import { proposeSkillDraft, type ProposalOutcome } from './propose.ts';
import { runCheck, type CheckRun } from './run-check.ts';
import { GateSession } from './session.ts';
import { badNameReason, snapshotDraft } from './snapshot.ts';

/** What no check establishes, whatever the profile: stated in every verdict. */
export const PROSE_INTENT_LIMITATION =
  "the intent of the draft's instructions (SKILL.md and the files it refers to) is not proven safe by any check: a prose check finds only the patterns it knows, and a reviewer reads the prose";

export interface GateOptions {
  /** a gate profile name (policies/gates/<name>.yaml) or a path to a profile file */
  profile: string;
  target: string;
  out: string;
  /** the real Deno for reference runs; null: this host has none */
  deno: string | null;
  /** a persona state folder (`<state>/<persona>`) whose review queue gets accepted drafts */
  reviewPersonaDir?: string;
  /** that persona's review backpressure (default: the queue's default policy) */
  reviewPolicy?: ReviewPolicy;
  /** logical time for the proposal, epoch ms (default: now) */
  now?: number;
  gatesDir?: string;
  /** plugin folders the checks are found in (default: the repository's plugins/) */
  pluginDirs?: readonly string[];
  /** the base of a relative profile path */
  cwd?: string;
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
  const real = realpathSync(target);
  const bad = badNameReason(Buffer.from(path.basename(real), 'utf8'));
  if (bad !== null) throw kernelError('RTC_ERR_GATE_TARGET', `--target ${JSON.stringify(real)}: the folder name cannot be recorded in evidence: ${bad}`, { details: { target } });
  return real;
}

type Recorded = CheckRecord;

function verdictOf(records: readonly Recorded[]): Verdict {
  if (records.some((r) => r.status === 'failed')) return 'rejected';
  if (records.some((r) => r.status === 'unavailable' && (r.required || r.internal))) return 'incomplete';
  return 'accepted';
}

/** Evidence is written with secret-shaped strings scrubbed (a draft's test that prints a token leaves none in the package). */
const evidenceScrub = scrubber();

/** Everything the verdict does not vouch for, in check order, ending with what no check can. */
function limitationsOf(records: readonly Recorded[]): Limitation[] {
  const out: Limitation[] = [];
  for (const r of records) {
    if (r.status === 'unavailable' && !r.required && !r.internal) out.push({ check: r.name, kind: 'unavailable', reason: r.reason });
    if (r.status === 'not-applicable') out.push({ check: r.name, kind: 'not-applicable', reason: r.reason });
    for (const line of r.not_evaluated) out.push({ check: r.name, kind: 'not-evaluated', reason: line });
  }
  out.push({ check: 'gate', kind: 'not-evaluated', reason: PROSE_INTENT_LIMITATION });
  return out;
}

function evidenceJson(value: unknown): string {
  return `${JSON.stringify(evidenceScrub.deep(value), null, 2)}\n`;
}

function writeJson(file: string, value: unknown): string {
  const text = evidenceJson(value);
  writeFileSync(file, text);
  return `sha256:${sha256(text)}`;
}

function shownDir(dir: string): string {
  const rel = path.relative(PROJECT_ROOT, dir);
  return rel.startsWith('..') || path.isAbsolute(rel) ? dir : rel;
}

function pluginRecord(check: ResolvedCheck, run: CheckRun | undefined): EvidenceManifest['gate']['checks'][number] {
  const m = check.plugin.manifest;
  return {
    name: check.name,
    plugin: m.id,
    version: m.version,
    dir: shownDir(check.plugin.dir),
    manifest_sha256: check.manifestDigest,
    bundle_sha256: run?.bundle ?? null,
    sandbox: m.sandbox,
    grant: { allow: check.entry.allow, bindings: run?.grant.bindings ?? [] },
    reads: check.reads,
  };
}

export async function runGate(options: GateOptions): Promise<GateReport> {
  const gate = loadGateProfile(options.profile, {
    dir: options.gatesDir ?? GATES_DIR,
    ...(options.pluginDirs ? { pluginDirs: options.pluginDirs } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const target = resolveTarget(path.resolve(options.target));
  const outAbs = path.resolve(options.out);
  // The scratch and snapshot paths inside --out become Deno permission flag values, which commas would split.
  if (outAbs.includes(',')) throw kernelError('RTC_ERR_GATE_TARGET', `--out ${outAbs} contains a comma, which a Deno permission flag cannot carry; use another folder`);
  if (isInside(target, outAbs)) throw kernelError('RTC_ERR_GATE_TARGET', `--out ${outAbs} is inside the draft folder ${target}; the snapshot would copy itself`);
  prepareOut(outAbs);
  const out = realpathSync(outAbs);
  if (isInside(out, target)) throw kernelError('RTC_ERR_GATE_TARGET', `the draft folder ${target} is inside --out ${out}`);

  const session = new GateSession(gate, target, out, options.deno);
  for (const dir of [session.dirs.source, session.dirs.build, session.dirs.scratch, session.dirs.checks]) mkdirSync(dir, { recursive: true });
  // The one thing the gate does itself: every check reads this copy, never the original.
  session.snapshot = snapshotDraft(target, session.dirs.draft, gate.profile.draft);

  const allowed = new Set<string>(gate.profile.may_be_unavailable);
  const records: Recorded[] = [];
  const runs = new Map<string, CheckRun>();
  const results = new Map<string, GateCheckResult>();
  try {
    // The check plugins are served the gate's bindings (binding-ops.ts) besides the sandbox's Deno ops.
    const kit = defaultSandboxKit({ extensions: [GATE_BINDING_OPS] });
    for (const [i, check] of gate.checks.entries()) {
      const run = await runCheck(session, check, kit, results);
      runs.set(check.name, run);
      results.set(check.name, run.result);
      const { status, reason, not_evaluated, output } = run.result;
      const file = `checks/${String(i + 1).padStart(2, '0')}-${check.name}.json`;
      const raw = { check: check.name, status, reason, not_evaluated, internal: run.internal, plugin: pluginRecord(check, run), check_audit: run.audit, output };
      const digest = writeJson(path.join(out, file), raw);
      records.push({ name: check.name, status, reason, required: !allowed.has(check.name), internal: run.internal, not_evaluated, output: file, sha256: digest });
    }
  } finally {
    // Host processes write their code caches until closed: the inventory comes after.
    await session.close();
  }

  const verdict = verdictOf(records);
  const exitStatus = VERDICT_EXIT[verdict];
  const skillName = skillNameOf(results);
  const proposalNote =
    verdict !== 'accepted'
      ? `none: the verdict is ${verdict}`
      : options.reviewPersonaDir === undefined
        ? 'review queue not available'
        : `submitted after this manifest was written to the review queue of ${path.resolve(options.reviewPersonaDir)} (its proposal log records the outcome)`;
  const snapshot = session.snapshot;
  const manifest: EvidenceManifest = {
    format: EVIDENCE_FORMAT,
    kind: 'gate',
    created_at: new Date().toISOString(),
    kernel: { version: KERNEL_VERSION },
    input: {
      path: target,
      name: session.name,
      digest: snapshot.digest,
      copy: path.relative(out, session.dirs.draft).split(path.sep).join('/'),
      files: snapshot.entries,
    },
    gate: {
      profile: gate.profile.name,
      file: shownDir(gate.file),
      digest: gate.digest,
      sandbox: { name: gate.sandbox.name, file: shownDir(gate.sandboxFile), digest: gate.sandboxDigest },
      limits: gate.limits,
      checks: gate.checks.map((c) => pluginRecord(c, runs.get(c.name))),
      may_be_unavailable: [...gate.profile.may_be_unavailable],
    },
    checks: records,
    limitations: limitationsOf(records),
    verdict,
    exit_status: exitStatus,
    proposal: proposalNote,
    files: inventory(out, new Set([MANIFEST_FILE])),
  };
  const manifestFile = path.join(out, MANIFEST_FILE);
  // The manifest comes last and whole (temp, fsync, rename, directory fsync): a package with one is complete.
  const manifestText = evidenceJson(manifest);
  replaceFileDurably(manifestFile, manifestText, { tmp: path.join(out, `.${MANIFEST_FILE}.tmp`) });
  const manifestDigest = `sha256:${sha256(manifestText)}`;

  let proposal: ProposalOutcome = { status: 'not-proposed', reason: proposalNote };
  if (verdict === 'accepted' && options.reviewPersonaDir !== undefined) {
    proposal = await proposeSkillDraft({
      personaDir: options.reviewPersonaDir,
      ...(options.reviewPolicy === undefined ? {} : { policy: options.reviewPolicy }),
      skill: skillName ?? session.name,
      manifestFile,
      manifestDigest,
      profile: gate.profile.name,
      now: options.now ?? Date.now(),
    });
  }
  return { verdict, exitStatus, out, manifestFile, manifestDigest, manifest, proposal };
}

/** The skill's name as the skill-manifest check read it, when it passed. */
function skillNameOf(results: ReadonlyMap<string, GateCheckResult>): string | undefined {
  const manifest = results.get('skill-manifest');
  if (manifest?.status !== 'passed') return undefined;
  const name = (manifest.output as { skill?: { frontmatter?: { name?: unknown } } } | null)?.skill?.frontmatter?.name;
  return typeof name === 'string' ? name : undefined;
}
