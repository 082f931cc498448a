/**
 * The one rule persona files live by: nothing is opened outside the persona's own
 * directory. A path is checked twice: lexically (no absolute path, no `..` climbing out) and
 * after resolving symbolic links of every part that exists, so a link planted inside the
 * persona directory cannot point a store at another persona's or the host's files.
 *
 * The check runs just before each open; a link swapped in between is outside what a
 * path check can promise (the container's volume boundary is the backstop).
 */
import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { kernelError, type ErrorCode } from '../../../kernel/errors.ts';

function isInside(root: string, target: string): boolean {
  return target === root || target.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** The error a guard raises and the word it names its paths with (`ledger path`, `persistence path`). */
export interface GuardVoice {
  code: ErrorCode;
  what: string;
}

function escape(voice: GuardVoice, personaDir: string, relative: string, why: string): never {
  throw kernelError(voice.code, `${voice.what} "${relative}" ${why}; nothing is opened outside the persona directory ${personaDir}`, {
    details: { personaDir, path: relative },
  });
}

/** The real path of `target`: links resolved in every existing part, the missing tail appended. */
function realpathOfExisting(target: string): string | undefined {
  let existing = target;
  const tail: string[] = [];
  for (;;) {
    try {
      lstatSync(existing);
      break;
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) return undefined;
      tail.unshift(path.basename(existing));
      existing = parent;
    }
  }
  try {
    return path.join(realpathSync.native(existing), ...tail); // .native: see resolveInside
  } catch {
    return undefined; // a dangling link: where it would create a file is not ours to guess
  }
}

/**
 * `target` itself when no existing part of it below the (already real) `root` is a symbolic
 * link: then its real path is the lexical one, exactly what realpathOfExisting would return,
 * for one lstat per part below root instead of an lstat plus a realpath(3) that readlinks
 * every part from `/` (this runs several times a cycle). Undefined when a part is a link:
 * the caller resolves it in full.
 */
function plainPathBelow(root: string, target: string): string | undefined {
  let at = root;
  for (const part of path.relative(root, target).split(path.sep)) {
    at = path.join(at, part);
    let st;
    try {
      st = lstatSync(at, { throwIfNoEntry: false });
    } catch {
      return target; // ENOTDIR and the like: a missing tail, kept lexically as realpathOfExisting keeps it
    }
    if (st === undefined) return target; // the rest does not exist: appended as it stands
    if (st.isSymbolicLink()) return undefined;
  }
  return target;
}

/**
 * Resolves `relative` against the persona directory and returns its real absolute path,
 * or throws `voice.code` when it would leave the persona directory.
 */
export function resolveInside(voice: GuardVoice, personaDir: string, relative: string): string {
  if (relative.trim() === '') escape(voice, personaDir, relative, 'is empty');
  if (path.isAbsolute(relative)) escape(voice, personaDir, relative, 'is absolute (it must be relative to the persona directory)');
  let root: string;
  try {
    // .native: one realpath(3) call, where the JS realpathSync lstats every component of the
    // path (this runs for every persistence file access, several times a cycle); same answer.
    root = realpathSync.native(personaDir);
  } catch {
    throw kernelError(voice.code, `persona directory ${personaDir} does not exist`, { details: { personaDir } });
  }
  const lexical = path.resolve(root, relative);
  if (!isInside(root, lexical) || lexical === root) escape(voice, personaDir, relative, 'climbs out of the persona directory');
  const real = plainPathBelow(root, lexical) ?? realpathOfExisting(lexical);
  if (real === undefined) escape(voice, personaDir, relative, 'goes through a dangling symbolic link');
  if (!isInside(root, real) || real === root) escape(voice, personaDir, relative, `resolves through a symbolic link to ${real}`);
  return real;
}
