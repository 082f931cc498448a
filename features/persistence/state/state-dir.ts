/**
 * The state directory, resolved and checked in one place for every command and for the
 * loop: `--state-dir`, else SCIDEX_AGENT_STATE_DIR, else `./state`, relative to the
 * command's working directory.
 *
 * Every way it can be wrong is one line naming the path and what is wrong, with one code and
 * so one exit status (1) whatever the command: it does not exist (RTC_ERR_CLI_FILE_NOT_FOUND,
 * for the commands that only read), it or a folder above it is a file, it cannot be read or
 * created, it lies under /proc, /sys or /dev (RTC_ERR_STATE_DIR). Folders are created one
 * level at a time, never with Node's recursive mkdir, which spins forever under /proc.
 *
 * A persona's folder gets the same care: a file where the folder should be, or a persona id
 * that names no folder (with a "did you mean" when one existing persona is close).
 */
import { mkdirSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../../kernel/errors.ts';
import { didYouMean } from '../../profiles/suggest.ts';
import { PERSONA_ID_PATTERN } from '../../../kernel/ids.ts';

/** The variable naming the state directory when --state-dir is not given. */
export const STATE_DIR_ENV = 'SCIDEX_AGENT_STATE_DIR';

export interface StateDirChoice {
  /** as the user gave it (flag, env or the default), for messages */
  given: string;
  /** absolute */
  stateDir: string;
}

/** `--state-dir`, else $SCIDEX_AGENT_STATE_DIR (when not blank), else `state`; resolved against `cwd`. */
export function chooseStateDir(flag: string | undefined, env: Readonly<Record<string, string | undefined>>, cwd: string): StateDirChoice {
  const given = flag ?? (env[STATE_DIR_ENV]?.trim() || undefined) ?? 'state';
  return { given, stateDir: path.resolve(cwd, given) };
}

/** What an errno means for a path, in a few words. */
export function fsReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'does not exist';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EEXIST':
      return 'already exists';
    case 'EISDIR':
      return 'is a folder, not a file';
    case 'EROFS':
      return 'is on a read-only file system';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    default:
      return code ? `${code}: ${(error as Error).message.split('\n')[0]}` : String((error as Error)?.message ?? error);
  }
}

/** Folders the kernel never keeps state in: the kernel's own views of processes, devices and the system. */
const SPECIAL_ROOTS = ['/proc', '/sys', '/dev'];

function specialRoot(dir: string): string | undefined {
  // The nearest existing ancestor, through its links: a link to /proc is /proc.
  let existing = dir;
  for (;;) {
    try {
      existing = realpathSync(existing);
      break;
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) break;
      existing = parent;
    }
  }
  const candidates = [dir, existing];
  return SPECIAL_ROOTS.find((root) => candidates.some((c) => c === root || c.startsWith(`${root}/`)));
}

function stateDirError(given: string, what: string, cause?: unknown) {
  return kernelError('RTC_ERR_STATE_DIR', `state directory ${given}: ${what}`, { details: { path: given }, ...(cause === undefined ? {} : { cause }) });
}

/**
 * The nearest ancestor of `dir` that exists, which must be a folder; throws when it is a file
 * or cannot be examined. Returns the folders below it that are missing, outermost first.
 */
function missingBelow(dir: string, label: (p: string) => string): string[] {
  const missing: string[] = [];
  for (let current = dir; ; current = path.dirname(current)) {
    let stat;
    try {
      stat = statSync(current);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw kernelError('RTC_ERR_STATE_DIR', `${label(current)}: ${fsReason(error)}`, { cause: error });
      if (code === 'ENOTDIR') {
        // Some folder above is a file: find it and name it.
        continue;
      }
      missing.unshift(current);
      if (path.dirname(current) === current) break;
      continue;
    }
    if (!stat.isDirectory()) throw kernelError('RTC_ERR_STATE_DIR', `${label(current)}: is a file, not a folder`);
    break;
  }
  return missing;
}

/** Creates `dir` and its missing parents, one level at a time; one line for anything in the way. */
export function makeDirectories(dir: string, label: (p: string) => string = (p) => p): void {
  for (const missing of missingBelow(path.resolve(dir), label)) {
    try {
      mkdirSync(missing);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && statSync(missing, { throwIfNoEntry: false })?.isDirectory()) continue;
      throw kernelError('RTC_ERR_STATE_DIR', `${label(missing)}: cannot create the folder (${fsReason(error)})`, { cause: error });
    }
  }
}

/** The file that stands where a folder of `dir`'s path should be (for ENOTDIR). */
function fileAbove(dir: string): string | undefined {
  for (let current = path.dirname(dir); current !== path.dirname(current); current = path.dirname(current)) {
    try {
      if (!statSync(current).isDirectory()) return current;
    } catch {
      // missing, or itself below the file: keep going up
    }
  }
  return undefined;
}

/** Checks that an existing `stateDir` is a readable folder; throws one line otherwise. */
function checkReadableFolder(choice: StateDirChoice): void {
  const { given, stateDir } = choice;
  let stat;
  try {
    stat = statSync(stateDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw kernelError('RTC_ERR_CLI_FILE_NOT_FOUND', `state directory ${given} does not exist; pass --state-dir DIR or set ${STATE_DIR_ENV}`, { details: { path: given } });
    }
    if (code === 'ENOTDIR') throw stateDirError(given, `${fileAbove(stateDir) ?? 'a part of the path'} is a file, not a folder`, error);
    throw stateDirError(given, fsReason(error), error);
  }
  if (!stat.isDirectory()) throw stateDirError(given, 'is a file, not a folder; pass the folder that holds the personas');
  try {
    readdirSync(stateDir);
  } catch (error) {
    throw stateDirError(given, `cannot be listed (${fsReason(error)})`, error);
  }
}

/** The state directory of a command that only reads: it must exist and be a readable folder. */
export function existingStateDir(flag: string | undefined, env: Readonly<Record<string, string | undefined>>, cwd: string): StateDirChoice {
  const choice = chooseStateDir(flag, env, cwd);
  checkReadableFolder(choice);
  return choice;
}

/**
 * The checks of ensureStateDir without creating anything: for a command that validates its
 * other input first and creates the state directory only once it will write.
 */
export function checkStateDirUsable(given: string, stateDir: string): void {
  const special = specialRoot(path.resolve(stateDir));
  if (special !== undefined) throw stateDirError(given, `is under ${special}, which holds the system's own files, never state; pick a folder of your own`);
  const label = (p: string) => (p === path.resolve(stateDir) ? `state directory ${given}` : `state directory ${given}: ${p}`);
  if (missingBelow(path.resolve(stateDir), label).length === 0) checkReadableFolder({ given, stateDir });
}

/** The state directory of a command that writes (run): created when missing, never under /proc, /sys or /dev. */
export function ensureStateDir(given: string, stateDir: string): void {
  checkStateDirUsable(given, stateDir);
  makeDirectories(stateDir, (p) => (p === path.resolve(stateDir) ? `state directory ${given}` : `state directory ${given}: ${p}`));
}

/** `<state>/<persona>`, created when missing; a file in its place is one line. */
export function ensurePersonaDir(stateDir: string, personaId: string): string {
  const dir = path.join(stateDir, personaId);
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (stat?.isDirectory()) return dir;
  if (stat) throw kernelError('RTC_ERR_STATE_DIR', `${dir}: is a file where the folder of persona ${personaId} belongs; move it aside`, { details: { path: dir, persona: personaId } });
  makeDirectories(dir, (p) => p);
  return dir;
}

/** Persona folders under a state directory (not hidden, not the kernel's own). */
export function personaFolders(stateDir: string, exclude: ReadonlySet<string> = new Set()): string[] {
  return readdirSync(stateDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !exclude.has(entry.name))
    .map((entry) => entry.name)
    .sort();
}


/**
 * `<state>/<persona>` for a command that works on an existing persona: the id must be a valid
 * one and its folder must exist (a typo is never a new persona), with "did you mean" when
 * one existing persona is close.
 */
export function existingPersonaDir(choice: StateDirChoice, persona: string, command: string): string {
  if (!PERSONA_ID_PATTERN.test(persona)) throw kernelError('RTC_ERR_CLI_USAGE', `--persona ${persona}: lowercase letters, digits, "-" and "_"; see "runtimectl ${command} --help"`);
  const dir = path.join(choice.stateDir, persona);
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (stat?.isDirectory()) return dir;
  if (stat) throw kernelError('RTC_ERR_STATE_DIR', `${dir}: is a file where the folder of persona ${persona} belongs; move it aside`, { details: { path: dir, persona } });
  let known: string[] = [];
  try {
    known = personaFolders(choice.stateDir);
  } catch {
    // the state directory itself is checked by the caller
  }
  throw kernelError('RTC_ERR_PERSONA_NOT_FOUND', `persona ${persona}${didYouMean(persona, known)} has no folder in state directory ${choice.given}`, { details: { persona, known } });
}

/**
 * `<state>/<persona>` for a command that may start a persona's folder (a gate proposal, a
 * submitted proposal): the folder exists, or the id names a persona profile (`profileIds`).
 * Anything else is a typo, refused with "did you mean" over both, and nothing is created.
 */
export function knownPersonaDir(choice: StateDirChoice, persona: string, command: string, profileIds: readonly string[]): string {
  if (!PERSONA_ID_PATTERN.test(persona)) throw kernelError('RTC_ERR_CLI_USAGE', `--persona ${persona}: lowercase letters, digits, "-" and "_"; see "runtimectl ${command} --help"`);
  const dir = path.join(choice.stateDir, persona);
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (stat?.isDirectory() || (stat === undefined && profileIds.includes(persona))) return dir;
  if (stat) throw kernelError('RTC_ERR_STATE_DIR', `${dir}: is a file where the folder of persona ${persona} belongs; move it aside`, { details: { path: dir, persona } });
  let folders: string[] = [];
  try {
    folders = personaFolders(choice.stateDir);
  } catch {
    // a missing state directory has no personas
  }
  const known = [...new Set([...folders, ...profileIds])].sort();
  throw kernelError('RTC_ERR_PERSONA_NOT_FOUND', `persona ${persona}${didYouMean(persona, known)} has no folder in state directory ${choice.given} and no profile; nothing was created (known: ${known.join(', ') || 'none'})`, {
    details: { persona, known },
  });
}
