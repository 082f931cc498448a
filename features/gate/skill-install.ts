/**
 * `skills install FROM-EVIDENCE`: the step after a gate accepted a skill draft and an operator
 * accepted its proposal. The skill is installed from the evidence package (its snapshot of
 * the draft, `source/<draft>/`), never from the draft folder, which may have changed since:
 *
 *  1. the package is verified first (evidence/verify.ts): manifest.json against
 *     the digest the proposal recorded (`--digest`), every file against the manifest; the
 *     verdict must be `accepted`. A tampered, rejected or incomplete package is refused in one
 *     line, and nothing is written;
 *  2. the snapshot's files are copied into a hidden folder beside the destination, each one's
 *     sha256 checked as written against the manifest, synced, and the folder renamed into
 *     place (a skill is there whole or not at all), the parent synced;
 *  3. the installed skill is loaded as the catalog loads it, and must be the skill it is named.
 *
 * Where: `<skills folder>/shared/<name>/`, or `<skills folder>/persona/<id>/<name>/` with a
 * persona; the folder is --dir, else the first of RUNTIMECTL_SKILLS_PATH, else the built-in
 * skills/. A skill of that name already there is left alone: the same files are "already
 * installed", other files are refused (remove it first to replace it).
 */
import { createHash, randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { syncDirectory, writeAllSyncClose } from '../../kernel/storage/durable-files.ts';
import { shownPath } from '../../kernel/shown-path.ts';
import { EVIDENCE_FORMAT, type EvidenceManifest } from './evidence/manifest-schema.ts';
import { verifyPackage } from './evidence/verify.ts';
import { loadSkillCatalog } from '../skills/catalog.ts';
import { skillRootsForDir } from '../skills/layout.ts';
import { PERSONA_ID_PATTERN } from '../../kernel/ids.ts';

function refuse(message: string, details: Record<string, unknown> = {}): never {
  throw kernelError('RTC_ERR_SKILL_INSTALL', message, { details });
}

export interface InstallRequest {
  /** the evidence package folder, or its manifest.json */
  package: string;
  /** sha256 of manifest.json as the gate printed it and the proposal recorded it (`sha256:<hex>`) */
  digest: string;
  /** the skills folder to install into */
  skillsDir: string;
  /** install as this persona's own skill (`persona/<id>/<name>`) */
  persona?: string;
  /** how the package is named in messages */
  shown?: string;
}

export interface InstallResult {
  skill: string;
  /** `shared/<name>` or `persona/<id>/<name>`: what a profile's skills: selects */
  id: string;
  dir: string;
  files: number;
  manifest_digest: string;
  input_digest: string;
  already_installed: boolean;
}


export async function installSkill(request: InstallRequest): Promise<InstallResult> {
  const shown = request.shown ?? request.package;
  if (!/^sha256:[0-9a-f]{64}$/.test(request.digest)) refuse(`--digest ${request.digest}: must be sha256:<64 lower-case hex digits> (the digest the proposal recorded)`);
  if (request.persona !== undefined && !PERSONA_ID_PATTERN.test(request.persona)) refuse(`--persona ${request.persona}: lowercase letters, digits, "-" and "_"`);
  const verification = verifyPackage(request.package, request.digest);
  if (!verification.ok) {
    const first = verification.problems[0]!;
    const more = verification.problems.length > 1 ? ` (and ${verification.problems.length - 1} more; runtimectl evidence verify --package ${shown} lists them)` : '';
    const what = first.kind === 'manifest-changed' ? `its manifest is not the one the proposal recorded (${first.actual ?? 'missing'}, expected ${first.expected})` : `${first.path}: ${first.detail}`;
    refuse(`${shown}: the evidence package does not verify: ${what}${more}; nothing was installed`, { problems: verification.problems.length });
  }
  const manifest = JSON.parse(readFileSync(verification.manifest, 'utf8')) as EvidenceManifest;
  if (manifest.format !== EVIDENCE_FORMAT) refuse(`${shown}: a ${manifest.format} package; install takes ${EVIDENCE_FORMAT} packages (re-run the gate on the draft)`);
  if (manifest.verdict !== 'accepted') {
    const failed = manifest.checks.filter((c) => c.status === 'failed').map((c) => c.name);
    const missing = manifest.checks.filter((c) => c.status === 'unavailable' && c.required).map((c) => c.name);
    const why = failed.length > 0 ? `checks failed: ${failed.join(', ')}` : missing.length > 0 ? `required checks did not run: ${missing.join(', ')}` : 'see its manifest';
    refuse(`${shown}: the gate's verdict is ${manifest.verdict} (${why}); only an accepted draft is installed`, { verdict: manifest.verdict });
  }
  const name = manifest.input.name;
  if (!/^[^./\\][^/\\]*$/.test(name)) refuse(`${shown}: input.name ${JSON.stringify(name)} is not one folder name`);
  const source = path.join(verification.dir, manifest.input.copy);
  const parent = request.persona !== undefined ? path.join(request.skillsDir, 'persona', request.persona) : path.join(request.skillsDir, 'shared');
  const id = request.persona !== undefined ? `persona/${request.persona}/${name}` : `shared/${name}`;
  refuseFlatCollection(request.skillsDir);
  const destination = path.join(parent, name);
  const result = { skill: name, id, dir: destination, files: manifest.input.files.length, manifest_digest: verification.digest!, input_digest: manifest.input.digest };

  if (exists(destination)) {
    if (sameTree(destination, manifest)) return { ...result, already_installed: true };
    refuse(`${shownPath(destination)}: a skill ${name} with other files is already installed there; remove it first to install this one (nothing was changed)`);
  }
  mkdirSync(parent, { recursive: true });
  const temp = path.join(parent, `.${name}.installing-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    mkdirSync(temp);
    for (const file of [...manifest.input.files].sort((a, b) => a.path.localeCompare(b.path))) {
      const from = path.join(source, file.path);
      const to = path.join(temp, file.path);
      if (!inside(temp, to)) refuse(`${shown}: source file ${file.path} would land outside the skill folder`);
      mkdirSync(path.dirname(to), { recursive: true });
      if (file.type === 'symlink') {
        const target = readlinkSync(from);
        // A link is installed only when it stays inside the skill (the gate's snapshot allowed only such).
        if (path.isAbsolute(target) || !inside(temp, path.resolve(path.dirname(to), target))) refuse(`${shown}: ${file.path} is a link out of the skill (${target}); not installed`);
        symlinkSync(target, to);
        continue;
      }
      const bytes = readFileSync(from);
      if (`sha256:${createHash('sha256').update(bytes).digest('hex')}` !== file.sha256) refuse(`${shown}: ${file.path} changed while it was installed; nothing was installed`);
      writeSynced(to, bytes);
    }
    syncTree(temp);
    renameSync(temp, destination);
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
  syncDirectory(parent);
  // Loaded the way the loop loads it: it must be the skill it is named, and not refused.
  const roots = skillRootsForDir(request.skillsDir).filter((r) => r.dir === parent);
  const catalog = await loadSkillCatalog(roots, { displayRoot: process.cwd() });
  const refused = catalog.refused.find((r) => path.resolve(path.dirname(r.file)) === destination);
  if (refused || !catalog.skills.some((s) => s.id === id)) {
    rmSync(destination, { recursive: true, force: true });
    refuse(`${shownPath(destination)}: the installed skill does not load (${refused?.message ?? `no skill ${id} in the catalog`}); removed again`);
  }
  return { ...result, already_installed: false };
}

/**
 * A skills folder with neither shared/ nor persona/ is one flat root of shared skills
 * (layout.ts): creating shared/ in it would hide every skill it holds. Refused, with why.
 */
function refuseFlatCollection(dir: string): void {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  const hasLayout = entries.some((e) => e.isDirectory() && (e.name === 'shared' || e.name === 'persona'));
  const hasSkills = entries.some((e) => e.isDirectory() && !e.name.startsWith('.'));
  if (!hasLayout && hasSkills) refuse(`${shownPath(dir)}: a flat collection of skills (no shared/ or persona/ inside); installing would make it a laid-out folder and hide them: install into a folder with shared/ and persona/ (--dir)`);
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** Whether `dir` holds exactly the snapshot's files with their digests (an install done before). */
function sameTree(dir: string, manifest: EvidenceManifest): boolean {
  const want = new Map(manifest.input.files.map((f) => [f.path, f]));
  const have: string[] = [];
  const walk = (rel: string): void => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) walk(r);
      else have.push(r);
    }
  };
  try {
    walk('');
  } catch {
    return false;
  }
  if (have.length !== want.size) return false;
  for (const r of have) {
    const f = want.get(r);
    if (!f) return false;
    const full = path.join(dir, r);
    const data = f.type === 'symlink' ? Buffer.from(readlinkSync(full)) : readFileSync(full);
    if (`sha256:${createHash('sha256').update(data).digest('hex')}` !== f.sha256) return false;
  }
  return true;
}

function writeSynced(file: string, bytes: Buffer): void {
  writeAllSyncClose(openSync(file, 'wx', 0o644), bytes);
}

function syncTree(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) syncTree(path.join(dir, e.name));
  syncDirectory(dir);
}
