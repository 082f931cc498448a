/**
 * Finding bubblewrap and checking, once per path, that it can build a sandbox here (a
 * container without user namespaces, or a bwrap without permission, fails at this point,
 * not in the middle of a session). The operator may point at another binary with
 * RUNTIMECTL_BWRAP; otherwise `bwrap` on the kernel's PATH, then /usr/bin/bwrap.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../../kernel/errors.ts';

export const BWRAP_ENV = 'RUNTIMECTL_BWRAP';

export interface Bwrap {
  path: string;
  version: string;
}

function executable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function find(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const chosen = env[BWRAP_ENV]?.trim();
  if (chosen) return chosen;
  for (const dir of (env.PATH ?? '').split(':').filter((d) => path.isAbsolute(d))) {
    const candidate = path.join(dir, 'bwrap');
    if (executable(candidate)) return candidate;
  }
  return executable('/usr/bin/bwrap') ? '/usr/bin/bwrap' : undefined;
}

const probes = new Map<string, Promise<Bwrap>>();

function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { env: {}, timeout: 10_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 127) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) || (error && code === 127 ? error.message : '') });
    });
  });
}

async function probe(file: string): Promise<Bwrap> {
  if (!executable(file)) {
    throw kernelError('RTC_ERR_OSBOX_UNAVAILABLE', `bubblewrap (bwrap) is not installed at ${file}; install Debian's bubblewrap, or opt out with os_sandbox: off in the profile`, { details: { bwrap: file } });
  }
  const version = await run(file, ['--version']);
  const trial = await run(file, ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--', 'true']);
  if (trial.code !== 0) {
    const why = trial.stderr.trim().split('\n').pop() ?? `exit status ${trial.code}`;
    throw kernelError('RTC_ERR_OSBOX_UNAVAILABLE', `bubblewrap at ${file} cannot build a sandbox here: ${why}`, { details: { bwrap: file, stderr: why } });
  }
  return { path: file, version: version.stdout.trim() || 'unknown' };
}

/** The working bwrap, or RTC_ERR_OSBOX_UNAVAILABLE saying why there is none. */
export function locateBwrap(env: Readonly<Record<string, string | undefined>> = process.env): Promise<Bwrap> {
  const file = find(env);
  if (!file) {
    return Promise.reject(kernelError('RTC_ERR_OSBOX_UNAVAILABLE', `bubblewrap (bwrap) is not installed (looked on PATH and at /usr/bin/bwrap); install Debian's bubblewrap, or opt out with os_sandbox: off in the profile`));
  }
  let found = probes.get(file);
  if (!found) {
    found = probe(file);
    probes.set(file, found);
    // A failed probe is not cached: the operator may install bwrap while the kernel runs.
    found.catch(() => probes.delete(file));
  }
  return found;
}
