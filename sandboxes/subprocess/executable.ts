/**
 * Finding a program the way a shell would: PATH left to right, the first executable regular
 * file. One copy for the runner (the path a child is checked and spawned by), the bubblewrap
 * lookup and the start check of a token-spending executor.
 */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** Whether `file` is a regular file this process may execute. */
export function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `command` on `searchPath` (`:`-separated; empty entries skipped), or undefined. */
export function searchPath(command: string, pathVar: string): string | undefined {
  for (const dir of pathVar.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** The program's path when it can run, or undefined; a name with a `/` is a path (relative to `cwd`). */
export function findProgram(program: string, pathVar: string, cwd: string): string | undefined {
  if (program.includes('/')) {
    const file = path.resolve(cwd, program);
    return isExecutableFile(file) ? file : undefined;
  }
  return searchPath(program, pathVar);
}
