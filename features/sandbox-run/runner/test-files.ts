/**
 * Which files `sandbox test` runs: the ones named (a folder stands for the test files in
 * it), or, with none named, every test file under the working folder, by Deno's rule:
 * `test.{ts,tsx,mts,js,mjs,jsx}`, `*_test.*` and `*.test.*`, outside `node_modules` and
 * hidden folders, in sorted order.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../../kernel/errors.ts';

const TEST_FILE = /(^|[._])test\.(ts|tsx|mts|js|mjs|jsx)$/;

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (entry.isFile() && TEST_FILE.test(entry.name)) out.push(full);
  }
}

/** Absolute paths of the test files, each once: named files in the order given, a folder's sorted. */
export function findTestFiles(cwd: string, named: readonly string[]): string[] {
  const found: string[] = [];
  const roots = named.length === 0 ? [cwd] : named.map((n) => path.resolve(cwd, n));
  for (const root of roots) {
    let stats;
    try {
      stats = statSync(root);
    } catch {
      throw kernelError('RTC_ERR_CLI_FILE_NOT_FOUND', `module not found: ${path.relative(cwd, root) || root}`);
    }
    if (stats.isDirectory()) {
      const inside: string[] = [];
      walk(root, inside);
      found.push(...inside.sort());
    } else found.push(root);
  }
  return [...new Set(found)];
}

/** How Deno names a test file in its output: `./a_test.ts` inside the working folder. */
export function displayPath(cwd: string, file: string): string {
  const rel = path.relative(cwd, file);
  return rel.startsWith('..') || path.isAbsolute(rel) ? rel : `./${rel}`;
}
