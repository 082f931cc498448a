/**
 * The layering, enforced: every import of every source file (all forms, resolved to files; see
 * layering-imports.ts) against the rules of layering-rules.ts: any offence fails (there is no list
 * of tolerated ones). The fixtures under test/fixtures/layering/ are small
 * project trees with one kind of bad import each, and prove each rule reports.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { RULE_QUOTES, checkLayering, formatComponent, formatCycle, formatOffence, quoted, renderGraph, renderSurface, withQuote, type LayeringReport, type Offence } from './layering-check.ts';
import { KERNEL_PUBLIC_SURFACE } from './layering-rules.ts';

const FIXTURES = path.join(PROJECT_ROOT, 'test', 'fixtures', 'layering');
const fixture = (name: string): LayeringReport => checkLayering(path.join(FIXTURES, name));
const edgesOf = (offences: Offence[]) => offences.map((o) => `${o.rule}: ${o.from} → ${o.to}`).sort();

test('every import keeps the layering rules', (t) => {
  const report = checkLayering(PROJECT_ROOT);
  assert.ok(report.files > 400, `the source tree is scanned (${report.files} files)`);
  t.diagnostic(renderGraph(report));
  const cycles = report.cycles.flatMap((c) => formatComponent(c, report.edges));
  assert.deepEqual(
    report.offences.map(formatOffence),
    [],
    `imports against the layering rules (fix the import; test/kernel/layering-rules.ts has the rules)${report.offences.some((o) => o.rule === 'feature-cycle') ? `\n${cycles.join('\n')}` : ''}`,
  );
});

test('a kernel import of a feature is reported', () => {
  assert.deepEqual(edgesOf(fixture('kernel-to-features').offences), ['kernel: kernel/loop.ts → features/ledger/open.ts']);
});

test('a kernel import of a sandbox is reported, even type-only; a sandbox may import only the public surface', () => {
  const { offences } = fixture('kernel-to-sandboxes');
  assert.deepEqual(edgesOf(offences), ['kernel: kernel/plugins/instance.ts → sandboxes/isolate/isolate-runtime.ts']);
  assert.match(formatOffence(offences[0]!), /^kernel\/plugins\/instance\.ts:1 type-only import of sandboxes\/isolate\/isolate-runtime\.ts: breaks "kernel\/ imports only kernel\/"$/);
});

test('a plugin value import of kernel/errors.ts is reported; the ErrorCode type and isolate-safe contracts are not', () => {
  const report = fixture('plugin-value-import');
  assert.deepEqual(edgesOf(report.offences), [
    'plugins: plugins/ledger/rows-repo.ts → kernel/contracts/answer.ts',
    'plugins: plugins/ledger/rows-repo.ts → kernel/errors.ts',
    'plugins: plugins/ledger/rows-repo.ts → kernel/manifest/zod-error.ts',
  ]);
  assert.deepEqual([...report.isolateSafe], ['kernel/contracts/work.ts'], 'a contract with a value import of errors.ts is not isolate-safe');
  const errors = report.offences.find((o) => o.to === 'kernel/errors.ts')!;
  assert.equal(errors.line, 2, 'the value import is reported, not the type import of the same file');
});

test('a cycle between two features is reported with the cycle printed; an import into a lower feature is not', () => {
  const report = fixture('feature-cycle');
  assert.deepEqual(edgesOf(report.offences), [
    'feature-cycle: features/activity/report.ts → features/history/bucket-type.ts',
    'feature-cycle: features/history/buckets.ts → features/activity/report.ts',
  ]);
  assert.deepEqual(report.cycles.map((c) => c.members), [['features/activity', 'features/history']]);
  assert.equal(
    formatCycle(report.cycles[0]!.cycles[0]!, report.edges),
    'features/activity → features/history (features/activity/report.ts:1 → features/history/bucket-type.ts), features/history → features/activity (features/history/buckets.ts:1 → features/activity/report.ts)',
  );
  assert.equal(report.cycles[0]!.cycles.length, 1, 'the same cycle from its other end is not printed twice');
  assert.match(renderGraph(report), /feature cycles: 1 strongly connected component\(s\)\n {2}features in a cycle: features\/activity, features\/history\n {4}cycle: features\/activity → features\/history/);
});

test('every import form is resolved: static, re-export, type, import(), new URL, require in .cjs, createRequire, self-reference, # imports, path.join', () => {
  const { offences } = fixture('import-forms');
  assert.deepEqual(edgesOf(offences), [
    'computed: kernel/forms.ts → (computed)',
    'kernel: kernel/forms.ts → features/target/createrequire.ts',
    'kernel: kernel/forms.ts → features/target/dynamic.ts',
    'kernel: kernel/forms.ts → features/target/joined-const.ts',
    'kernel: kernel/forms.ts → features/target/joined.ts',
    'kernel: kernel/forms.ts → features/target/mapped.ts',
    'kernel: kernel/forms.ts → features/target/reexport.ts',
    'kernel: kernel/forms.ts → features/target/self.ts',
    'kernel: kernel/forms.ts → features/target/static.ts',
    'kernel: kernel/forms.ts → features/target/type.ts',
    'kernel: kernel/forms.ts → features/target/typeref.ts',
    'kernel: kernel/forms.ts → features/target/url.ts',
    'kernel: kernel/loader.cjs → features/target/cjs.ts',
    'kernel: kernel/loader.mjs → features/target/mjs.ts',
    'sandboxes: sandboxes/pool/host.ts → kernel/broker/broker.ts',
    'test-import: kernel/forms.ts → features/target/test/helpers.ts',
    'unresolved: kernel/forms.ts → ./no-such-module.ts',
  ]);
});

test('kernel/README.md and docs/architecture.md quote the public surface and the rules from layering-rules.ts (npm run layering -- --write)', () => {
  for (const q of RULE_QUOTES) {
    const text = readFileSync(path.join(PROJECT_ROOT, q.file), 'utf8');
    assert.equal(quoted(text, q.marker), q.render(), `${q.file}: the ${q.marker} block is stale`);
  }
  assert.equal(renderSurface().split('\n').length, KERNEL_PUBLIC_SURFACE.length);
  assert.equal(withQuote('a\n<!-- x:start note -->\nold\n<!-- x:end -->\nb', 'x', 'new\nlines'), 'a\n<!-- x:start note -->\nnew\nlines\n<!-- x:end -->\nb');
  assert.throws(() => withQuote('no markers', 'x', 'y'), /no <!-- x:start/);
});
