/**
 * `build`: bundles the draft's module (plugin.yaml's entry, or mod.ts) and each of its
 * tests (`tests/*_test.ts` or `tests/*.test.ts`, also .js, .mts, .mjs) into the package's own fresh cache, so no bundle
 * made before this run is trusted, and records each bundle's digest. A file that would pull
 * in anything outside the draft is refused before it is read, and its test does not run.
 */
import path from 'node:path';
import { isKernelError } from '../../../kernel/errors.ts';
import { bundleEntry } from '../../../kernel/build/bundle.ts';
import { guardImports } from '../import-guard.ts';
import type { BuiltEntry, CheckOutcome, GateContext } from '../context.ts';

export const TEST_FILE = /^tests\/[^/]+[._]test\.(ts|js|mts|mjs)$/;

function moduleEntry(ctx: GateContext): string | undefined {
  if (ctx.plugin) return path.posix.normalize(ctx.plugin.entry ?? '');
  return ctx.snapshot?.entries.some((e) => e.path === 'mod.ts' && e.type === 'file') ? 'mod.ts' : undefined;
}

async function build(ctx: GateContext, entry: string, role: BuiltEntry['role']): Promise<BuiltEntry> {
  const file = path.join(ctx.dirs.draft, entry);
  const guard = await guardImports(file, ctx.dirs.draft);
  if (!guard.ok) return { entry, role, error: guard.reason };
  try {
    const bundle = await bundleEntry(file, ctx.dirs.build);
    return { entry, role, bundle: { digest: `sha256:${bundle.digest}`, size: bundle.size, inputs: bundle.inputs } };
  } catch (error) {
    if (!isKernelError(error)) throw error;
    return { entry, role, error: error.message };
  }
}

export async function buildCheck(ctx: GateContext): Promise<CheckOutcome> {
  const { max_tests } = ctx.gate.profile.draft;
  const tests = (ctx.snapshot?.entries ?? []).filter((e) => e.type === 'file' && TEST_FILE.test(e.path)).map((e) => e.path);
  const problems: string[] = [];
  if (tests.length > max_tests) problems.push(`the draft declares ${tests.length} tests, over the profile's cap of ${max_tests}; only the first ${max_tests} run`);
  const mod = moduleEntry(ctx);
  const builds: BuiltEntry[] = [];
  if (mod !== undefined) builds.push(await build(ctx, mod, 'module'));
  for (const test of tests.slice(0, max_tests)) builds.push(await build(ctx, test, 'test'));
  ctx.builds = builds;
  ctx.runnableTests = builds.filter((b) => b.role === 'test' && b.bundle).map((b) => b.entry);
  for (const b of builds) if (b.error) problems.push(`${b.entry}: ${b.error}`);
  const output = { cache: path.relative(ctx.dirs.out, ctx.dirs.build), module: mod ?? null, tests, builds };
  if (problems.length > 0) return { status: 'failed', reason: problems.join('; '), output };
  if (builds.length === 0) return { status: 'passed', reason: 'nothing to build: the draft has no module and no tests', output };
  return { status: 'passed', reason: `${builds.length} bundle(s) built fresh: ${builds.map((b) => b.entry).join(', ')}`, output };
}
