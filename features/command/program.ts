/**
 * How the user runs runtimectl, so that every hint the CLI prints (`see "runtimectl run
 * --help"`, `restore it with "runtimectl archive restore"`, each usage line) can be run as
 * printed. After `npm ci` the `runtimectl` bin is on nobody's PATH: a newcomer runs
 * `npx runtimectl` (npm runs the checkout's own bin), `bin/runtimectl.js`, or `npm start`,
 * and a hint that says `runtimectl status` is then a "command not found".
 *
 * The answer, in order: `runtimectl` when the first `runtimectl` on PATH is this very file
 * (after `npm link`, in the container image); `npx runtimectl` when npm started the process
 * from this checkout (npx, npm start, npm run); else the path of bin/runtimectl.js as the user
 * can type it from where they stand (relative to the cwd when inside it, else absolute). A
 * command run in-process (tests, the benches) is `runtimectl`.
 *
 * The kernel words every hint as `runtimectl <verb> ...`; `withProgram` rewrites exactly
 * those (the word runtimectl followed by one of the CLI's verbs or a global flag), so prose
 * such as "this runtimectl supports" stays as it is.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { shownPath } from '../../kernel/shown-path.ts';

export const DEFAULT_PROGRAM = 'runtimectl';

function real(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The first `name` on PATH the shell would run (an executable file), or undefined. */
function onPath(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

export interface Invocation {
  /** process.argv[1]: the script Node runs */
  script: string | undefined;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** What to print for `runtimectl` in hints, given how this process was started (see the file's comment). */
export function invokedAs({ script, env, cwd }: Invocation): string {
  const bin = script === undefined ? undefined : real(script);
  // Not the runtimectl bin (a test or a bench calling main() in-process): the plain name.
  if (bin === undefined || path.basename(bin) !== 'runtimectl.js' || path.basename(path.dirname(bin)) !== 'bin') return DEFAULT_PROGRAM;
  const found = onPath(DEFAULT_PROGRAM, env.PATH);
  if (found !== undefined && real(found) === bin) return DEFAULT_PROGRAM;
  // npm runs the checkout's own bin by that name from anywhere inside the checkout.
  const checkout = path.dirname(path.dirname(bin));
  const prefix = env.npm_config_local_prefix;
  if (env.npm_command !== undefined && prefix !== undefined && real(prefix) === checkout) return `npx ${DEFAULT_PROGRAM}`;
  const shown = shownPath(script!, cwd);
  const typed = shown.includes('/') ? shown : `./${shown}`;
  // The bin's shebang passes --no-node-snapshot; a copy without its executable bit needs node named.
  return executable(bin) ? typed : `node --no-node-snapshot ${typed}`;
}

/** The CLI's top-level words (run, status, proposals, ...): set by the CLI skeleton from the composition's commands. */
let verbs: ReadonlySet<string> = new Set();

export function setProgramVerbs(words: Iterable<string>): void {
  verbs = new Set(words);
}

const HINT = /(^|[\s"'`(=])runtimectl (?=([a-z][a-z-]*|--help|--version)\b)/g;

/**
 * `text` with every `runtimectl <verb>` hint written as `program <verb>`. With the default
 * program (or before the verbs are known) the text is returned as it is.
 */
export function withProgram(text: string, program: string | undefined): string {
  if (program === undefined || program === DEFAULT_PROGRAM || verbs.size === 0) return text;
  return text.replace(HINT, (match, lead: string, word: string) => (word.startsWith('--') || verbs.has(word) ? `${lead}${program} ` : match));
}
