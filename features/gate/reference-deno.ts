/**
 * Where the real Deno is, for the reference-runtime check: `RUNTIMECTL_DENO` (a path, or
 * `none` to say this host has no Deno), else the project's own `node_modules/.bin/deno`,
 * else `deno` on PATH. None found means the check is unavailable, not passed.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';
import { resolveExecutable } from '../../sandboxes/subprocess/run-command.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findDeno(env: Readonly<Record<string, string | undefined>>, cwd: string): string | null {
  const chosen = env.RUNTIMECTL_DENO;
  if (chosen !== undefined) {
    if (chosen === '' || chosen === 'none') return null;
    const file = path.resolve(cwd, chosen);
    return existsSync(file) && executable(file) ? file : null;
  }
  const local = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'deno');
  if (existsSync(local) && executable(local)) return local;
  return resolveExecutable('deno', env.PATH ?? '', cwd) ?? null;
}
