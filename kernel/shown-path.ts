/**
 * How the kernel names a file in what it prints (errors, hints, listings): relative to the
 * folder the command was run from when the file is inside it, else absolute. Never relative
 * to some other folder (the checkout, a plugin root, the persona's folder): a path a user is
 * shown must open from where the user stands.
 */
import path from 'node:path';

export function shownPath(file: string, cwd: string = process.cwd()): string {
  const absolute = path.resolve(cwd, file);
  const rel = path.relative(cwd, absolute);
  if (rel === '') return '.';
  return rel.startsWith('..') || path.isAbsolute(rel) ? absolute : rel;
}
