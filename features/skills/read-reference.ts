/**
 * Reads a file a skill refers to (`reference/evaluation.md`, `themes/ocean.md`) on demand,
 * and never a byte outside the skill's folder: the path must be relative, must stay inside
 * the folder as written, and must still be inside once every symlink is resolved. The file
 * opened is the resolved one, opened without following a final symlink, so a link swapped
 * in after the check is refused by the open itself.
 */
import { constants, type Dirent } from 'node:fs';
import { open, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';

/** A reference is a small document; anything larger is refused rather than read. */
export const DEFAULT_REFERENCE_MAX_BYTES = 1024 * 1024;
/** Listing stops here so a skill folder with a huge tree cannot stall the catalog. */
const MAX_LISTED_FILES = 2000;

/** True when `child` is `parent` or below it (both absolute, already normalized). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

/** Resolves `relPath` inside `skillDir`, or throws naming the skill and the path. */
async function resolveInside(skillId: string, skillDir: string, relPath: string): Promise<string> {
  const escape = (why: string) =>
    kernelError('RTC_ERR_SKILL_REFERENCE_ESCAPE', `skill ${skillId}: reference "${relPath}" ${why}`, { details: { skill: skillId, path: relPath } });
  if (typeof relPath !== 'string' || relPath === '' || relPath.includes('\0')) throw escape('is not a usable relative path');
  if (path.isAbsolute(relPath) || path.win32.isAbsolute(relPath)) throw escape('is absolute; give a path relative to the skill folder');
  const lexical = path.resolve(skillDir, relPath);
  if (!isInside(skillDir, lexical)) throw escape('leaves the skill folder');

  const realDir = await realpath(skillDir);
  let real: string;
  try {
    real = await realpath(lexical);
  } catch {
    throw kernelError('RTC_ERR_SKILL_REFERENCE_NOT_FOUND', `skill ${skillId}: reference "${relPath}" does not exist`, {
      details: { skill: skillId, path: relPath },
    });
  }
  if (!isInside(realDir, real)) throw escape('resolves through a symlink to outside the skill folder');
  return real;
}

export async function readSkillReference(
  skillId: string,
  skillDir: string,
  relPath: string,
  maxBytes = DEFAULT_REFERENCE_MAX_BYTES,
): Promise<string> {
  const real = await resolveInside(skillId, skillDir, relPath);
  const notFile = () =>
    kernelError('RTC_ERR_SKILL_REFERENCE_NOT_FOUND', `skill ${skillId}: reference "${relPath}" is not a regular file`, {
      details: { skill: skillId, path: relPath },
    });
  let handle;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    throw notFile();
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notFile();
    if (info.size > maxBytes) {
      throw kernelError(
        'RTC_ERR_SKILL_REFERENCE_TOO_LARGE',
        `skill ${skillId}: reference "${relPath}" is ${info.size} bytes, over the ${maxBytes}-byte cap`,
        { details: { skill: skillId, path: relPath, size: info.size, cap: maxBytes } },
      );
    }
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * The files of a skill folder other than SKILL.md, as sorted POSIX-style relative paths.
 * Symlinks are listed only when they resolve to a file inside the folder, so the list
 * names exactly what `readSkillReference` will serve.
 */
export async function listSkillReferences(skillDir: string): Promise<string[]> {
  const realDir = await realpath(skillDir);
  const entries = (await readdir(skillDir, { recursive: true, withFileTypes: true })) as Dirent[];
  const out: string[] = [];
  for (const entry of entries) {
    if (out.length >= MAX_LISTED_FILES) break;
    const full = path.join(entry.parentPath, entry.name);
    const rel = path.relative(skillDir, full).split(path.sep).join('/');
    if (rel === 'SKILL.md') continue;
    if (entry.isFile()) out.push(rel);
    else if (entry.isSymbolicLink()) {
      try {
        const target = await realpath(full);
        if (isInside(realDir, target) && (await stat(target)).isFile()) out.push(rel);
      } catch {
        // a dangling link is not a reference
      }
    }
  }
  return out.sort();
}
