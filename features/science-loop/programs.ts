/**
 * Finds a program the way a shell would (PATH, left to right, an executable regular file),
 * for the start check of a token-spending executor: a missing `codex` or `claude` stops the
 * persona's start with one line instead of failing every cycle.
 */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

function executable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The program's path, or undefined; a name with a `/` is taken as a path (relative to `cwd`). */
export function findProgram(program: string, pathVar: string, cwd: string): string | undefined {
  if (program.includes('/')) {
    const file = path.resolve(cwd, program);
    return executable(file) ? file : undefined;
  }
  for (const dir of pathVar.split(path.delimiter)) {
    if (dir === '') continue;
    const file = path.join(dir, program);
    if (executable(file)) return file;
  }
  return undefined;
}
