/**
 * The one rule a persona's files live by: nothing is opened outside the persona's own
 * directory. A path is checked twice: lexically (no absolute path, no `..` climbing out) and
 * after resolving symbolic links of every part that exists, so a link planted inside the
 * persona directory cannot point a store at another persona's or the host's files.
 *
 * The check runs just before each open; a link swapped in between is outside what a
 * path check can promise (the container's volume boundary is the backstop).
 * Used by the ledger (RTC_ERR_LEDGER_PATH_ESCAPE) and the persistence storage bindings
 * (RTC_ERR_PERSISTENCE_PATH_ESCAPE), each with its own code and wording.
 */
import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { kernelError, type ErrorCode } from '../errors.ts';

export interface PathGuardWording {
  code: ErrorCode;
  /** what the path is, for messages: `ledger path`, `persistence path` */
  what: string;
}

const LEDGER_WORDING: PathGuardWording = { code: 'RTC_ERR_LEDGER_PATH_ESCAPE', what: 'ledger path' };

function isInside(root: string, target: string): boolean {
  return target === root || target.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

function escape(personaDir: string, relative: string, why: string, wording: PathGuardWording): never {
  throw kernelError(wording.code, `${wording.what} "${relative}" ${why}; nothing is opened outside the persona directory ${personaDir}`, {
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
    return path.join(realpathSync.native(existing), ...tail); // .native: see resolveInsidePersona
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
 * or throws the wording's code (default RTC_ERR_LEDGER_PATH_ESCAPE) when it would leave it.
 */
export function resolveInsidePersona(personaDir: string, relative: string, wording: PathGuardWording = LEDGER_WORDING): string {
  if (relative.trim() === '') escape(personaDir, relative, 'is empty', wording);
  if (path.isAbsolute(relative)) escape(personaDir, relative, 'is absolute (it must be relative to the persona directory)', wording);
  let root: string;
  try {
    // .native: one realpath(3) call, where the JS realpathSync lstats every component of the
    // path (this runs for every persistence file access, several times a cycle); same answer.
    root = realpathSync.native(personaDir);
  } catch {
    throw kernelError(wording.code, `persona directory ${personaDir} does not exist`, { details: { personaDir } });
  }
  const lexical = path.resolve(root, relative);
  if (!isInside(root, lexical) || lexical === root) escape(personaDir, relative, 'climbs out of the persona directory', wording);
  const real = plainPathBelow(root, lexical) ?? realpathOfExisting(lexical);
  if (real === undefined) escape(personaDir, relative, 'goes through a dangling symbolic link', wording);
  if (!isInside(root, real) || real === root) escape(personaDir, relative, `resolves through a symbolic link to ${real}`, wording);
  return real;
}
