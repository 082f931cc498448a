/**
 * `node:path` (and `node:path/posix`): POSIX paths from path-browserify, a port of Node's own
 * posix implementation. Relative paths resolve against `Deno.cwd()` (through `process.cwd()`),
 * as in Deno. `path.win32` keeps its separators; its functions are outside the sandbox's subset.
 */
import posixPackage from 'path-browserify';
import { unsupportedFunction } from '../../unsupported.ts';

type PathModule = Record<string, unknown> & { sep: string; delimiter: string };

const posix = posixPackage as unknown as PathModule;

const win32: PathModule = { sep: '\\', delimiter: ';' };
for (const name of ['resolve', 'normalize', 'isAbsolute', 'join', 'relative', 'toNamespacedPath', 'dirname', 'basename', 'extname', 'format', 'parse', 'matchesGlob']) {
  win32[name] = unsupportedFunction(`path.win32.${name}`, 'the sandbox runs on Linux; use path.posix');
}
win32.win32 = win32;
win32.posix = posix;

posix.win32 = win32;
posix.posix = posix;
posix.toNamespacedPath ??= (p: string) => p;
posix.matchesGlob = unsupportedFunction('path.matchesGlob');
Object.defineProperty(posix, 'default', { value: posix, enumerable: false, configurable: true });

export const modules = { path: posix, 'path/posix': posix };
