/**
 * The layering runs one way: features, plugins and the composition root (cli/) depend on the
 * kernel; the kernel imports none of them. This scans every import of every kernel module
 * (static, re-exports, dynamic import(), new URL(..., import.meta.url)) and resolves it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PROJECT_ROOT } from '../../kernel/version.ts';

const KERNEL = path.join(PROJECT_ROOT, 'kernel');
const OUTSIDE = ['features', 'plugins', 'cli', 'policies', 'skills', 'bench', 'test'];
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|new URL\(\s*)(['"])([^'"]+)\1/g;

function kernelFiles(): string[] {
  return (readdirSync(KERNEL, { recursive: true }) as string[]).filter((f) => /\.(ts|js|mjs)$/.test(f)).map((f) => path.join(KERNEL, f));
}

test('the kernel imports no feature, plugin or composition module', () => {
  const files = kernelFiles();
  assert.ok(files.length > 50, 'the kernel is scanned');
  const offences: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(SPECIFIER)) {
      const spec = match[2]!;
      if (!spec.startsWith('.')) continue;
      const target = path.relative(PROJECT_ROOT, path.resolve(path.dirname(file), spec));
      const top = target.split(path.sep)[0]!;
      if (OUTSIDE.includes(top)) offences.push(`${path.relative(PROJECT_ROOT, file)} imports ${target}`);
    }
  }
  assert.deepEqual(offences, [], 'kernel modules reach outside the kernel');
});

test('the layering check sees an import into features (it can fail)', () => {
  const probe = "import { x } from '../../features/ledger/open.ts';\nconst y = await import('../plugins/x.ts');";
  const found = [...probe.matchAll(SPECIFIER)].map((m) => m[2]);
  assert.deepEqual(found, ['../../features/ledger/open.ts', '../plugins/x.ts']);
});
