/**
 * `runtimectl evidence verify [current.json] [--package DIR] [--json]` re-hashes selected
 * evidence and reports every file that no longer matches; `runtimectl evidence select
 * --name N --package DIR [--current FILE] [--json]` verifies a package and selects it as
 * current under a name (replacing what that name selected before).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { readCurrent, resolveSelected, selectionNameSchema, writeCurrent, type CurrentSelection } from './evidence/current.ts';
import { verifyPackage, type EvidenceProblem, type PackageVerification } from './evidence/verify.ts';
import { isInside } from '../skills/read-reference.ts';
import { parseFlags, printJson, type CliIo, type Command } from '../command/command.ts';

const VERIFY_USAGE = `Usage: runtimectl evidence verify [CURRENT_JSON] [--package DIR] [--json]

Re-hashes every evidence package CURRENT_JSON (default: ./current.json) selects: its
manifest.json against the digest it was selected with, then every file the manifest lists
(inventory, check outputs, source copies) and the input digest; files added to a package
are reported too. With --package, checks one package folder (or manifest.json) instead.

current.json: {"selected": [{"name", "path", "digest"}]}, path a package folder or its
manifest.json (relative to the folder of current.json), digest "sha256:<hex>" of manifest.json.

Options:
  --package DIR   verify this one package (no selection digest to compare)
  --json          print {ok, packages: [{name, path, ok, digest, verdict, problems}]}

Exit status: 0 when everything matches, 1 when anything does not.
`;

const SELECT_USAGE = `Usage: runtimectl evidence select --name NAME --package DIR [--current FILE] [--json]

Verifies the evidence package DIR (every listed file re-hashed) and, when it matches,
selects it in FILE (default: ./current.json, created if missing) under NAME with the
sha256 of its manifest.json, replacing what NAME selected before. A package that does not
verify is refused and current.json is left as it was. A package whose verdict is not
accepted (incomplete: a required check could not run; rejected: a check failed) is
selected with a warning on stderr naming those checks, printed before current.json changes.

Exit status: 0 selected, 1 refused (the package does not verify).
`;

function problemLine(p: EvidenceProblem): string {
  const digests = p.expected ? ` (recorded ${p.expected}${p.actual ? `, now ${p.actual}` : ''})` : '';
  return `${p.kind} ${p.path}: ${p.detail}${digests}`;
}

function describe(name: string | null, shown: string, v: PackageVerification): Record<string, unknown> {
  return { name, path: shown, manifest: v.manifest, ok: v.ok, digest: v.digest ?? null, verdict: v.verdict ?? null, problems: v.problems };
}

async function verifyRun(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { package: { type: 'string' }, json: { type: 'boolean' } }, 'evidence verify');
  if (positionals.length > 1) throw kernelError('RTC_ERR_CLI_USAGE', `expected at most one CURRENT_JSON, got ${positionals.length}; see "runtimectl evidence verify --help"`);
  if (values.package !== undefined && positionals.length > 0) throw kernelError('RTC_ERR_CLI_USAGE', 'give CURRENT_JSON or --package, not both');
  const results: Record<string, unknown>[] = [];
  const lines: string[] = [];
  const report = (name: string | null, shown: string, v: PackageVerification): void => {
    results.push(describe(name, shown, v));
    const label = name === null ? shown : `${name} ${shown}`;
    if (v.ok) lines.push(`ok    ${label}${v.verdict ? ` (${v.verdict})` : ''} ${v.digest}`);
    else for (const p of v.problems) lines.push(`FAIL  ${label}: ${problemLine(p)}`);
  };
  if (values.package !== undefined) {
    const target = path.resolve(io.cwd, values.package);
    if (!existsSync(target)) throw kernelError('RTC_ERR_EVIDENCE_NOT_FOUND', `--package ${values.package} does not exist`);
    report(null, values.package, verifyPackage(target));
  } else {
    const file = path.resolve(io.cwd, positionals[0] ?? 'current.json');
    const current = readCurrent(file, io.cwd);
    for (const entry of current.selected) report(entry.name, entry.path, verifyPackage(resolveSelected(file, entry), entry.digest));
  }
  const ok = results.every((r) => r.ok === true);
  if (values.json) printJson(io, { ok, packages: results });
  else {
    for (const line of lines) io.stdout(`${line}\n`);
    const bad = results.filter((r) => r.ok !== true).length;
    io.stdout(`${results.length - bad} of ${results.length} evidence package(s) match${bad > 0 ? `; ${bad} do not` : ''}\n`);
  }
  return ok ? 0 : 1;
}

/** What a reviewer must know before a package that is not accepted becomes current. */
function verdictWarnings(shown: string, v: PackageVerification): string[] {
  const checks = v.checks ?? [];
  if (v.verdict === 'incomplete') {
    const missing = checks.filter((c) => c.status === 'unavailable').map((c) => `${c.name} (${c.reason})`);
    return [`${shown} is incomplete: ${missing.join('; ') || 'a required check did not run'}; nothing vouches for what those checks cover`];
  }
  if (v.verdict === 'rejected') {
    const failed = checks.filter((c) => c.status === 'failed').map((c) => c.name);
    return [`${shown} is rejected: ${failed.join(', ')} failed; selecting it records the rejection, it does not make the draft acceptable`];
  }
  return [];
}

async function selectRun(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { name: { type: 'string' }, package: { type: 'string' }, current: { type: 'string' }, json: { type: 'boolean' } },
    'evidence select',
  );
  if (positionals.length > 0) throw kernelError('RTC_ERR_CLI_USAGE', `unexpected argument "${positionals[0]}"; see "runtimectl evidence select --help"`);
  if (values.name === undefined || values.package === undefined) throw kernelError('RTC_ERR_CLI_USAGE', 'evidence select needs --name and --package; see "runtimectl evidence select --help"');
  const name = selectionNameSchema.safeParse(values.name);
  if (!name.success) throw kernelError('RTC_ERR_CLI_USAGE', `--name ${JSON.stringify(values.name)}: ${name.error.issues[0]?.message ?? 'invalid'}`);
  const currentFile = path.resolve(io.cwd, values.current ?? 'current.json');
  const target = path.resolve(io.cwd, values.package);
  if (!existsSync(target)) throw kernelError('RTC_ERR_EVIDENCE_NOT_FOUND', `--package ${values.package} does not exist`);
  const verification = verifyPackage(target);
  if (!verification.ok) {
    const first = verification.problems[0]!;
    throw kernelError('RTC_ERR_EVIDENCE_MISMATCH', `${values.package}: ${problemLine(first)}${verification.problems.length > 1 ? ` (and ${verification.problems.length - 1} more; see "runtimectl evidence verify --package")` : ''}; not selected`, {
      details: { problems: verification.problems },
    });
  }
  const current: CurrentSelection = existsSync(currentFile) ? readCurrent(currentFile, io.cwd) : { selected: [] };
  const warnings = verdictWarnings(values.package, verification);
  for (const warning of warnings) io.stderr(`runtimectl: warning: ${warning}\n`);
  const base = path.dirname(currentFile);
  const stored = isInside(base, verification.dir) ? path.relative(base, verification.dir) || '.' : verification.dir;
  const entry = { name: name.data, path: stored, digest: verification.digest! };
  const at = current.selected.findIndex((e) => e.name === entry.name);
  const previous = at === -1 ? undefined : current.selected[at];
  if (at === -1) current.selected.push(entry);
  else current.selected[at] = entry;
  writeCurrent(currentFile, current);
  if (values.json) printJson(io, { selected: entry, replaced: previous ?? null, current: currentFile, verdict: verification.verdict ?? null, warnings });
  else io.stdout(`selected ${entry.name}: ${entry.path} ${entry.digest} (${verification.verdict})${previous ? `, replacing ${previous.path} ${previous.digest}` : ''}\n`);
  return 0;
}

export const evidenceVerifyCommand: Command = {
  path: ['evidence', 'verify'],
  summary: 're-hash the evidence current.json selects and report what no longer matches',
  usage: VERIFY_USAGE,
  run: verifyRun,
};

export const evidenceSelectCommand: Command = {
  path: ['evidence', 'select'],
  summary: 'verify an evidence package and select it as current under a name',
  usage: SELECT_USAGE,
  run: selectRun,
};
