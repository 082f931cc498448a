/**
 * The hostile scripts of the containment suite and what each is allowed to end with.
 *
 * Each script in `scripts/` states its own contract in `// @tag: value` header lines, so a
 * script and its expectation are read (and reviewed) together:
 *   @attack            what it tries (free text, may repeat)
 *   @expect            the outcomes it may end with, space-separated (see `Outcome`)
 *   @exit              the exact exit status required
 *   @stdout-is         the exact stdout required (`\n` for newlines)
 *   @stderr-has        a substring stderr must contain
 *   @stdout-not-match  a regular expression stdout must not match
 *   @error-match       a regular expression the error message must match when the outcome is `error`
 *   @tier: trusted     also run it in the in-process (trusted) tier
 *   @profile           the sandbox profile of its process-tier run (default: `default`)
 *   @flags             Deno permission flags; `{work}` is the script's own fresh folder (its
 *                      cwd; Deno.args[0]), `{outside}` a folder beside it that holds a secret
 *                      and must stay exactly as it was (Deno.args[1])
 *   @env               NAME=VALUE for the run's environment (`{work}`, `{outside}` filled in)
 *   @setup             made before the run, in `{work}`: `fifo NAME`, `link NAME TARGET`,
 *                      `sparse NAME BYTES` (a file that size, with no blocks), `file NAME TEXT`
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ScriptRunResult } from '../../features/sandbox-run/runner/script-run-types.ts';

/**
 * How a run ended:
 *  - `contained`: exit 0 and the script printed CONTAINED (it tried everything and reached nothing)
 *  - `exit0`: exit 0 without that line
 *  - `error`: a non-zero exit with an ordinary error (uncaught exception, build refusal...)
 *  - a limit: the run was stopped with that RTC_ERR_SANDBOX_<LIMIT> code
 */
export type Outcome = 'contained' | 'exit0' | 'error' | 'CPU' | 'MEMORY' | 'WALL' | 'OUTPUT' | 'TRANSFER' | 'CRASHED';

const LIMIT_OUTCOMES: Record<string, Outcome> = {
  RTC_ERR_SANDBOX_CPU: 'CPU',
  RTC_ERR_SANDBOX_MEMORY: 'MEMORY',
  RTC_ERR_SANDBOX_WALL: 'WALL',
  RTC_ERR_SANDBOX_OUTPUT: 'OUTPUT',
  RTC_ERR_SANDBOX_TRANSFER: 'TRANSFER',
  RTC_ERR_SANDBOX_CRASHED: 'CRASHED',
};
const OUTCOMES = new Set<string>(['contained', 'exit0', 'error', ...Object.values(LIMIT_OUTCOMES)]);

/** Built at run time, like in the scripts, so this file never carries the marker itself. */
export const ESCAPE_MARK = ['ESC', 'APED'].join('');
export const ESCAPE_FILE_PREFIX = 'rtc-escaped-';

export interface HostileScript {
  /** file name, e.g. `20-sync-infinite-loop.js` */
  name: string;
  file: string;
  attack: string;
  expect: ReadonlySet<Outcome>;
  exit?: number;
  stdoutIs?: string;
  stderrHas?: string;
  stdoutNotMatch?: RegExp;
  errorMatch?: RegExp;
  trusted: boolean;
  profile?: string;
  flags: string[];
  env: string[];
  setup: string[][];
}

export const SCRIPTS_DIR = path.join(import.meta.dirname, 'scripts');

export function loadHostileScripts(dir = SCRIPTS_DIR): HostileScript[] {
  return readdirSync(dir)
    .filter((name) => /^\d\d-.*\.(js|ts|mjs|mts)$/.test(name))
    .sort()
    .map((name) => parseHeader(name, path.join(dir, name)));
}

function parseHeader(name: string, file: string): HostileScript {
  const tags = new Map<string, string[]>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('//')) break;
    const match = /^\/\/ @([a-z-]+):\s?(.*)$/.exec(line);
    if (!match) continue;
    const [, tag = '', value = ''] = match;
    tags.set(tag, [...(tags.get(tag) ?? []), value]);
  }
  const one = (tag: string): string | undefined => tags.get(tag)?.[0];
  const expect = (one('expect') ?? '').split(/\s+/).filter(Boolean);
  if (expect.length === 0) throw new Error(`${name}: no // @expect: header line`);
  for (const outcome of expect) {
    if (!OUTCOMES.has(outcome)) throw new Error(`${name}: unknown outcome "${outcome}" in @expect`);
  }
  const exit = one('exit');
  const stdoutIs = one('stdout-is');
  const stdoutNotMatch = one('stdout-not-match');
  const errorMatch = one('error-match');
  return {
    name,
    file,
    attack: (tags.get('attack') ?? []).join(' '),
    expect: new Set(expect as Outcome[]),
    ...(exit === undefined ? {} : { exit: Number(exit) }),
    ...(stdoutIs === undefined ? {} : { stdoutIs: stdoutIs.replaceAll('\\n', '\n') }),
    ...(one('stderr-has') === undefined ? {} : { stderrHas: one('stderr-has') }),
    ...(stdoutNotMatch === undefined ? {} : { stdoutNotMatch: new RegExp(stdoutNotMatch) }),
    ...(errorMatch === undefined ? {} : { errorMatch: new RegExp(errorMatch, 'i') }),
    trusted: one('tier') === 'trusted',
    ...(one('profile') === undefined ? {} : { profile: one('profile') }),
    flags: (tags.get('flags') ?? []).flatMap((line) => line.split(/\s+/).filter(Boolean)),
    env: (tags.get('env') ?? []).flatMap((line) => line.split(/\s+/).filter(Boolean)),
    setup: (tags.get('setup') ?? []).map((line) => line.split(/\s+/).filter(Boolean)),
  };
}

/** Where a script runs: its own folder (granted by its flags), and a folder beside it that must stay untouched. */
export interface Workspace {
  work: string;
  outside: string;
}

export const OUTSIDE_SECRET = 'secret.txt';
export const OUTSIDE_SECRET_TEXT = 'the secret outside every grant\n';

export function fillPlaceholders(value: string, w: Workspace): string {
  return value.replaceAll('{work}', w.work).replaceAll('{outside}', w.outside);
}

/** Makes the script's folders and its `@setup` entries. */
export function prepareWorkspace(script: HostileScript, root: string): Workspace {
  const w = { work: path.join(root, 'work'), outside: path.join(root, 'outside') };
  mkdirSync(w.work, { recursive: true });
  mkdirSync(w.outside, { recursive: true });
  writeFileSync(path.join(w.outside, OUTSIDE_SECRET), OUTSIDE_SECRET_TEXT);
  for (const [kind, name, ...rest] of script.setup) {
    if (!name) throw new Error(`${script.name}: @setup ${kind} needs a name`);
    const at = path.join(w.work, name);
    mkdirSync(path.dirname(at), { recursive: true });
    switch (kind) {
      case 'fifo':
        execFileSync('mkfifo', [at]);
        break;
      case 'link':
        symlinkSync(fillPlaceholders(rest[0] ?? '', w), at);
        break;
      case 'sparse':
        writeFileSync(at, '');
        truncateSync(at, Number(rest[0]));
        break;
      case 'file':
        writeFileSync(at, fillPlaceholders(rest.join(' '), w));
        break;
      default:
        throw new Error(`${script.name}: unknown @setup kind "${kind}"`);
    }
  }
  return w;
}

/** Every entry under `dir` with its type and content digest: what "untouched" is compared on. */
export function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = lstatSync(p);
      if (st.isDirectory()) {
        out.push(`${path.relative(dir, p)}/`);
        walk(p);
      } else out.push(`${path.relative(dir, p)} ${st.isFile() ? createHash('sha256').update(readFileSync(p)).digest('hex').slice(0, 16) : 'special'} ${st.mode.toString(8)}`);
    }
  };
  walk(dir);
  return out;
}

export function classify(result: ScriptRunResult): Outcome {
  const limit = result.error?.code === undefined ? undefined : LIMIT_OUTCOMES[result.error.code];
  if (limit) return limit;
  if (result.exitCode === 0) return result.stdout.includes('CONTAINED') ? 'contained' : 'exit0';
  return 'error';
}

/** Everything wrong with how a hostile script's run ended, as readable lines (empty: all good). */
export function outcomeProblems(script: HostileScript, result: ScriptRunResult): string[] {
  const problems: string[] = [];
  const outcome = classify(result);
  if (!script.expect.has(outcome)) {
    problems.push(`ended as ${outcome}, expected one of ${[...script.expect].join(', ')}`);
  }
  if (outcome === 'contained' || outcome === 'exit0') {
    if (!result.ok || result.error !== null) problems.push(`exit 0 but ok=${result.ok} error=${JSON.stringify(result.error)}`);
  } else {
    if (result.exitCode === 0) problems.push(`ended as ${outcome} with exit status 0`);
    if (result.ok) problems.push(`ended as ${outcome} with ok=true`);
    if (result.error === null && outcome !== 'error') problems.push(`ended as ${outcome} with error=null`);
  }
  if (script.exit !== undefined && result.exitCode !== script.exit) problems.push(`exit status ${result.exitCode}, expected ${script.exit}`);
  if (script.stdoutIs !== undefined && result.stdout !== script.stdoutIs) {
    problems.push(`stdout ${JSON.stringify(result.stdout.slice(0, 300))}, expected ${JSON.stringify(script.stdoutIs)}`);
  }
  if (script.stderrHas !== undefined && !result.stderr.includes(script.stderrHas)) {
    problems.push(`stderr lacks ${JSON.stringify(script.stderrHas)}: ${JSON.stringify(result.stderr.slice(0, 300))}`);
  }
  if (script.stdoutNotMatch && script.stdoutNotMatch.test(result.stdout)) {
    problems.push(`stdout matches ${script.stdoutNotMatch}: ${JSON.stringify(result.stdout.slice(0, 300))}`);
  }
  if (outcome === 'error' && script.errorMatch && !script.errorMatch.test(result.error?.message ?? result.stderr)) {
    problems.push(`error ${JSON.stringify(result.error)} does not match ${script.errorMatch}`);
  }
  return problems;
}

/** One line for the test log: how the run ended. */
export function describeRun(result: ScriptRunResult, ms: number): string {
  const error = result.error ? ` ${result.error.code ?? result.error.name}: ${result.error.message.slice(0, 160)}` : '';
  return `${classify(result)} exit=${result.exitCode} ${Math.round(ms)}ms out=${result.stdout.length}/${result.stderr.length}B${error}`;
}
