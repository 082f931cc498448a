/**
 * Finding bubblewrap and checking, once per path, that it can build a sandbox here (a
 * container without user namespaces, or a bwrap without permission, fails at this point,
 * not in the middle of a session). The operator may point at another binary with
 * RUNTIMECTL_BWRAP; otherwise `bwrap` on the kernel's PATH, then /usr/bin/bwrap.
 */
import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { kernelError } from '../../../kernel/errors.ts';
import { isExecutableFile } from '../executable.ts';

export const BWRAP_ENV = 'RUNTIMECTL_BWRAP';

export interface Bwrap {
  path: string;
  version: string;
}


function find(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const chosen = env[BWRAP_ENV]?.trim();
  if (chosen) return chosen;
  for (const dir of (env.PATH ?? '').split(':').filter((d) => path.isAbsolute(d))) {
    const candidate = path.join(dir, 'bwrap');
    if (isExecutableFile(candidate)) return candidate;
  }
  return isExecutableFile('/usr/bin/bwrap') ? '/usr/bin/bwrap' : undefined;
}

const probes = new Map<string, Promise<Bwrap>>();
/** Probes that have succeeded, for the synchronous lookup (a spawn() answers at once). */
const known = new Map<string, Bwrap>();

function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { env: {}, timeout: 10_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 127) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) || (error && code === 127 ? error.message : '') });
    });
  });
}

const TRIAL = ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--', 'true'];

function runSync(file: string, args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(file, args, { env: {}, timeout: 10_000, encoding: 'utf8' });
  if (r.error) return { code: 127, stdout: '', stderr: r.error.message };
  return { code: r.status ?? 128, stdout: r.stdout, stderr: r.stderr };
}

function notInstalled(file: string): Error {
  return kernelError('RTC_ERR_OSBOX_UNAVAILABLE', `bubblewrap (bwrap) is not installed at ${file}; install Debian's bubblewrap, or opt out with os_sandbox: off in the profile`, { details: { bwrap: file } });
}

const NOT_FOUND = "bubblewrap (bwrap) is not installed (looked on PATH and at /usr/bin/bwrap); install Debian's bubblewrap, or opt out with os_sandbox: off in the profile";

/** The probe's verdict from its two runs: `--version`, then a trial sandbox running `true`. */
function judged(file: string, version: { stdout: string }, trial: { code: number; stderr: string }): Bwrap {
  if (trial.code !== 0) {
    const why = trial.stderr.trim().split('\n').pop() ?? `exit status ${trial.code}`;
    throw kernelError('RTC_ERR_OSBOX_UNAVAILABLE', `bubblewrap at ${file} cannot build a sandbox here: ${why}`, { details: { bwrap: file, stderr: why } });
  }
  const found = { path: file, version: version.stdout.trim() || 'unknown' };
  known.set(file, found);
  return found;
}

async function probe(file: string): Promise<Bwrap> {
  if (!isExecutableFile(file)) throw notInstalled(file);
  return judged(file, await run(file, ['--version']), await run(file, TRIAL));
}

/** The working bwrap, or RTC_ERR_OSBOX_UNAVAILABLE saying why there is none. */
export function locateBwrap(env: Readonly<Record<string, string | undefined>> = process.env): Promise<Bwrap> {
  const file = find(env);
  if (!file) return Promise.reject(kernelError('RTC_ERR_OSBOX_UNAVAILABLE', NOT_FOUND));
  let found = probes.get(file);
  if (!found) {
    found = probe(file);
    probes.set(file, found);
    // A failed probe is not cached: the operator may install bwrap while the kernel runs.
    found.catch(() => probes.delete(file));
  }
  return found;
}

/**
 * The same answer synchronously, for `Deno.Command(...).spawn()`, which returns its child at
 * once: a bwrap already probed is answered from memory; otherwise it is probed here, once per
 * kernel process, holding the thread for the two short runs (a few milliseconds).
 */
export function locateBwrapSync(env: Readonly<Record<string, string | undefined>> = process.env): Bwrap {
  const file = find(env);
  if (!file) throw kernelError('RTC_ERR_OSBOX_UNAVAILABLE', NOT_FOUND);
  const ready = known.get(file);
  if (ready) return ready;
  if (!isExecutableFile(file)) throw notInstalled(file);
  const found = judged(file, runSync(file, ['--version']), runSync(file, TRIAL));
  probes.set(file, Promise.resolve(found));
  return found;
}
