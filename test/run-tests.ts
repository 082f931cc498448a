/**
 * `npm test`: runs every `*.test.ts` under `kernel/`, `features/`, `plugins/`, `sandboxes/`
 * and `test/` with Node's own test runner, with the flags the kernel needs
 * (`--no-node-snapshot` for isolated-vm on Node 20, tsx for TypeScript). The convention: a
 * feature's or plugin's suites live in its own `test/` folder (`features/ledger/test/`), the
 * kernel's and the cross-cutting ones (conformance, containment, crash, replay) in `test/`.
 * Node 20's `--test` takes no globs, so the file list is made here.
 * Extra arguments filter the files by substring of their path: `npm test -- permissions`.
 */
import { existsSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const filters = process.argv.slice(2);
const TEST_ROOTS = ['kernel', 'features', 'plugins', 'sandboxes', 'test'];
const files = TEST_ROOTS.flatMap((dir) =>
  existsSync(path.join(root, dir))
    ? (readdirSync(path.join(root, dir), { recursive: true }) as string[])
        .filter((file) => file.endsWith('.test.ts') && !file.split(path.sep).includes('node_modules') && !file.split(path.sep).includes('fixtures'))
        .map((file) => path.join(dir, file))
    : [],
)
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
