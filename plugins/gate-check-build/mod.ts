/**
 * gate-check.build: bundles the draft's module (plugin.yaml's entry, or mod.ts), every other
 * TypeScript/JavaScript file, and each of its tests into the package's own fresh cache
 * (the gate.build binding), so no bundle made before this run is trusted, and records each
 * bundle's digest. A file that would pull in anything outside the draft is refused before
 * it is read, and its test does not run. A draft without TypeScript or JavaScript has
 * nothing to build: not applicable; code in other languages is listed as not evaluated.
 */
import { deno, gate } from '../gate-check-shared/globals.ts';
import { earlier, result, type GateCheckInput, type GateCheckResult } from '../gate-check-shared/results.ts';
import { foreignLanguage, RUNNABLE, TEST_FILE } from './code-files.ts';

interface ManifestDetail {
  present?: boolean;
  valid?: boolean;
  problem?: string;
  manifest?: { entry?: string };
}

function manifestDetail(input: GateCheckInput): ManifestDetail | undefined {
  return (earlier(input, 'skill-manifest')?.output as { plugin?: ManifestDetail } | undefined)?.plugin;
}

function moduleEntry(plugin: ManifestDetail | undefined, input: GateCheckInput): string | undefined {
  if (plugin?.valid && typeof plugin.manifest?.entry === 'string') return plugin.manifest.entry.replace(/^\.\//, '');
  return input.draft.files.some((f) => f.path === 'mod.ts' && f.type === 'file') ? 'mod.ts' : undefined;
}

/** The first bytes of a file, for its `#!` line; nothing for a file that cannot be read as text. */
async function head(input: GateCheckInput, file: string): Promise<string> {
  try {
    return (await deno.readTextFile(`${input.draft.root}/${file}`)).slice(0, 200);
  } catch {
    return '';
  }
}

export async function check(input: GateCheckInput): Promise<GateCheckResult> {
  const files = input.draft.files.filter((f) => f.type === 'file').map((f) => f.path);
  const tests = files.filter((f) => TEST_FILE.test(f));
  const plugin = manifestDetail(input);
  // A plugin.yaml that is there but unreadable names an entry nobody can read: building mod.ts
  // instead would be a silent default standing in for the draft's own module.
  if (plugin?.present && !plugin.valid) {
    return result('unavailable', `plugin.yaml did not validate, so its entry cannot be read (${plugin.problem ?? 'invalid'})`, { module: null, plugin: 'invalid' });
  }
  const mod = moduleEntry(plugin, input);
  const code = files.filter((f) => RUNNABLE.test(f) && !TEST_FILE.test(f) && f !== mod);
  const foreign: { file: string; language: string }[] = [];
  for (const file of files.filter((f) => !RUNNABLE.test(f))) {
    const language = foreignLanguage(file, await head(input, file));
    if (language !== null) foreign.push({ file, language });
  }
  const notEvaluated = foreign.map((f) => `${f.file}: ${f.language} code, which this gate does not run: its behaviour is not evaluated`);
  const maxTests = input.gate.draft.max_tests ?? tests.length;
  const problems: string[] = [];
  if (tests.length > maxTests) problems.push(`the draft declares ${tests.length} tests, over the profile's cap of ${maxTests}; only the first ${maxTests} run`);
  const builds = [];
  if (mod !== undefined) builds.push(await gate.build.bundle(mod, 'module'));
  for (const file of code) builds.push(await gate.build.bundle(file, 'module'));
  for (const test of tests.slice(0, maxTests)) builds.push(await gate.build.bundle(test, 'test'));
  for (const b of builds) if (b.error) problems.push(`${b.entry}: ${b.error}`);
  const output = { module: mod ?? null, code, tests, foreign, builds, runnable_tests: builds.filter((b) => b.role === 'test' && b.bundle).map((b) => b.entry) };
  if (problems.length > 0) return result('failed', problems.join('; '), output, notEvaluated);
  if (builds.length === 0) {
    const others = foreign.length > 0 ? `; ${foreign.length} file(s) of code in other languages are not run by this gate` : '';
    return result('not-applicable', `the draft has no TypeScript or JavaScript: nothing to build${others}`, output, notEvaluated);
  }
  return result('passed', `${builds.length} bundle(s) built fresh: ${builds.map((b) => b.entry).join(', ')}`, output, notEvaluated);
}
