/**
 * `runtimectl gate --profile NAME|FILE --target PATH --out DIR [--plugins-dir DIR]... [--persona ID [--state-dir DIR]] [--json]`:
 * evaluates a skill draft under a gate profile and writes its evidence package. The exit
 * status is the verdict, so a script can branch on it without parsing output.
 */
import path from 'node:path';
import { isKernelError, kernelError } from '../../kernel/errors.ts';
import { findDeno } from './reference-deno.ts';
import { listGateProfiles } from './profiles.ts';
import { runGate, type GateReport } from './run-gate.ts';
import { listPersonaIds, resolvePersona } from '../profiles/load.ts';
import { parseReviewPolicy, type ReviewPolicy } from '../review-queue/index.ts';
import { assertReviewPersonaId } from '../review-queue/paths.ts';
import { hint, parseFlags, printJson, type CliIo, type Command } from '../command/command.ts';
import { shownPath } from '../../kernel/shown-path.ts';
import { pluginSearchPath } from '../plugin-search/scan.ts';
import { chooseStateDir, knownPersonaDir } from '../persistence/state/state-dir.ts';

const USAGE = `Usage: runtimectl gate --profile NAME|FILE --target PATH --out DIR [--plugins-dir DIR]...
                       [--persona ID [--state-dir DIR]] [--json]

Evaluates a skill draft (a folder with SKILL.md, optionally plugin.yaml, mod.ts, other
files, and tests named as deno test finds them: *_test.ts, *.test.ts) under a gate profile
(policies/gates/NAME.yaml: ${listGateProfiles().join(', ')}; or a profile file of your own).
Snapshots the draft into DIR/source with a sha256 per file, then runs the profile's check
plugins in order (plugins/gate-check-*/: snapshot, skill-manifest, prose-risk, permissions,
build, tests, determinism, resource-limits, denials, reference-runtime, or any you add),
each in its own isolate with the grant the profile gives it, and writes each check's raw
output to DIR/checks/ and DIR/manifest.json with the digests, limitations and verdict.

A check is passed, failed, not-applicable (nothing of its kind to evaluate: a draft with
no code has nothing to test) or unavailable (it could not evaluate). Every verdict lists
what it does not vouch for, among it the intent of the draft's prose.

Tests are written as for deno test (Deno.test(...), ignore, per-test permissions) and run
in the profile's sandbox with the profile's ceiling as permission flags, Deno.cwd() the
snapshot of the draft, no environment, and Deno.args[0] a fresh scratch folder, the only
place they may write, within the profile's scratch quota (refused past it as it writes).

Options:
  --profile NAME|FILE      gate profile: a name in policies/gates/, or a path to a YAML file
  --target PATH            the draft folder (its name must equal the SKILL.md name)
  --out DIR                a new or empty folder for the evidence package
  --plugins-dir DIR        also look for check plugins here (repeatable; also
                           RUNTIMECTL_PLUGIN_PATH, folders separated by ":"): adding a
                           check is dropping a gate-check-NAME/ plugin folder in one
  --persona ID             an accepted draft becomes a skill-draft proposal in this
                           persona's review queue (<state>/<persona>/review/), resting on
                           the package's manifest.json and its digest. Without it the
                           manifest records "review queue not available". The gate never
                           enables a skill itself: an operator decides the proposal.
  --state-dir DIR          state directory holding <persona>/ (default:
                           $SCIDEX_AGENT_STATE_DIR, else ./state)
  --json                   print {verdict, exit_status, manifest, manifest_digest, checks,
                           limitations, proposal}

The reference-runtime check uses the real Deno: RUNTIMECTL_DENO=PATH (or "none"), else
node_modules/.bin/deno, else deno on PATH; none found leaves it unavailable.

Exit status: 0 accepted, 1 rejected (a check failed), 3 incomplete (a required check was
unavailable), 2 the gate did not run (bad usage, unknown profile or check, missing target,
non-empty --out): nothing was evaluated and no package was written.
`;

/**
 * The persona's queue folder and backpressure: the review section of its profile in
 * policies/personas/ when it has one (as \`runtimectl proposals submit\` reads it), else the
 * queue's defaults.
 */
function reviewQueueOf(persona: string, stateDir: string | undefined, io: CliIo): { reviewPersonaDir: string; reviewPolicy?: ReviewPolicy } {
  assertReviewPersonaId(persona);
  // The proposal goes to a persona that exists (a folder, or a profile): a typo is refused
  // before the gate runs, and never becomes a new persona folder.
  const reviewPersonaDir = knownPersonaDir(chooseStateDir(stateDir, io.env, io.cwd), persona, 'gate', listPersonaIds());
  try {
    const loaded = resolvePersona(persona, { cwd: io.cwd });
    const review = (loaded.profile as { review?: unknown }).review;
    if (review !== undefined) return { reviewPersonaDir, reviewPolicy: parseReviewPolicy(review, `${path.basename(loaded.file)}: review`) };
  } catch (error) {
    if (!isKernelError(error) || error.code !== 'RTC_ERR_PERSONA_NOT_FOUND') throw error;
  }
  return { reviewPersonaDir };
}

function printReport(io: CliIo, report: GateReport, persona: string | undefined): void {
  const width = Math.max(...report.manifest.checks.map((c) => c.name.length));
  for (const [i, check] of report.manifest.checks.entries()) {
    const mark = check.status === 'unavailable' && !check.required && !check.internal ? 'unavailable (allowed)' : check.status;
    io.stdout(`  ${String(i + 1).padStart(2, '0')} ${check.name.padEnd(width)}  ${mark.padEnd(14)}  ${check.reason}\n`);
  }
  for (const limitation of report.manifest.limitations) io.stdout(`not vouched for (${limitation.kind}): ${limitation.check}: ${limitation.reason}\n`);
  io.stdout(`verdict: ${report.verdict} (exit ${report.exitStatus})\n`);
  io.stdout(`evidence: ${report.manifestFile} ${report.manifestDigest}\n`);
  if (report.proposal.status === 'queued') io.stdout(`proposal: ${report.proposal.id} queued for review (${report.proposal.queue})\n`);
  else if (report.proposal.status === 'refused') io.stdout(`proposal: refused by the review queue: ${report.proposal.reason}\n`);
  else if (report.verdict === 'accepted') io.stdout(`proposal: ${report.proposal.reason}\n`);
  // The step after an accepted verdict, as a command: installed from this package, verified by its digest.
  if (report.verdict === 'accepted') {
    const install = `runtimectl skills install ${shownPath(report.out, io.cwd)} --digest ${report.manifestDigest}${persona ? ` --persona ${persona}` : ''}`;
    io.stdout(hint(io, report.proposal.status === 'queued' ? `next: once an operator accepts ${report.proposal.id}, install it: ${install}\n` : `next: install it: ${install}\n`));
  }
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      profile: { type: 'string' },
      target: { type: 'string' },
      out: { type: 'string' },
      'plugins-dir': { type: 'string', multiple: true },
      persona: { type: 'string' },
      'state-dir': { type: 'string' },
      json: { type: 'boolean' },
    },
    'gate',
  );
  const missing = (['profile', 'target', 'out'] as const).filter((k) => values[k] === undefined);
  if (missing.length > 0) throw kernelError('RTC_ERR_CLI_USAGE', `missing --${missing.join(', --')}; see "runtimectl gate --help"`);
  if (positionals.length > 0) throw kernelError('RTC_ERR_CLI_USAGE', `unexpected argument "${positionals[0]}"; see "runtimectl gate --help"`);
  if (values['state-dir'] !== undefined && values.persona === undefined) throw kernelError('RTC_ERR_CLI_USAGE', '--state-dir names where a persona\'s review queue is; give --persona too');

  let report: GateReport;
  try {
    report = await runGate({
      profile: values.profile!,
      target: path.resolve(io.cwd, values.target!),
      out: path.resolve(io.cwd, values.out!),
      deno: findDeno(io.env, io.cwd),
      pluginDirs: pluginSearchPath({ env: io.env, dirs: values['plugins-dir'] ?? [], cwd: io.cwd }),
      cwd: io.cwd,
      ...(values.persona === undefined ? {} : reviewQueueOf(values.persona, values['state-dir'], io)),
    });
  } catch (error) {
    // Exit 1 means "rejected": a gate that could not start says so with 2 instead.
    if (isKernelError(error) && !error.internal) {
      io.stderr(`runtimectl: ${error.toLine()}\n`);
      return 2;
    }
    throw error;
  }
  if (values.json) {
    printJson(io, {
      verdict: report.verdict,
      exit_status: report.exitStatus,
      out: report.out,
      manifest: report.manifestFile,
      manifest_digest: report.manifestDigest,
      input: { path: report.manifest.input.path, digest: report.manifest.input.digest },
      checks: report.manifest.checks,
      limitations: report.manifest.limitations,
      proposal: report.proposal,
    });
  } else printReport(io, report, values.persona);
  return report.exitStatus;
}

export const gateCommand: Command = {
  path: ['gate'],
  summary: 'evaluate a skill draft under a gate profile and write its evidence package',
  usage: USAGE,
  run,
};
