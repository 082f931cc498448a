/**
 * `npm test`: runs every `test/**\/*.test.ts` under Node's own test runner, with the flags
 * the kernel needs (`--no-node-snapshot` for isolated-vm on Node 20, tsx for TypeScript).
 * Node 20's `--test` takes no globs, so the file list is made here.
 * Extra arguments filter the files by substring: `npm test -- permissions`.
 */
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const filters = process.argv.slice(2);
const files = (readdirSync(path.join(root, 'test'), { recursive: true }) as string[])
  .filter((file) => file.endsWith('.test.ts') && !file.includes('node_modules'))
  .map((file) => path.join('test', file))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();

if (files.length === 0) {
  console.error(`runtimectl tests: no test file matches ${filters.join(' ')}`);
  process.exit(1);
}

const result = spawnSync(
  process.execPath,
  ['--no-node-snapshot', '--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
  { cwd: root, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
