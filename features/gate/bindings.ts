/**
 * What the `gate.*` bindings do for one check of one gate run (the ops in
 * binding-ops.ts only check the grant and forward here):
 *
 *   gate.manifest  the kernel's own parsers and the gate's own grant comparison, on text
 *                  and values the check passes in: no file, no network, no state
 *   gate.build     bundles a file of the snapshot, after the import guard, into the
 *                  package's fresh build cache; only what it built may be run
 *   gate.sandbox   runs a built test file in the gate's sandbox (sandbox-runs.ts)
 *   gate.deno      runs a built test file under the real Deno (reference-deno.ts)
 *
 * A draft's fault is an answer (a parse refusal, a build error, a failed run), never a
 * throw. A throw is the gate's own fault: it is recorded in `faults`, and the check's
 * result is marked internal whatever the check then says, so a gate bug can never read as
 * a verdict on the draft.
 */
import path from 'node:path';
import { bundleEntry } from '../../sandboxes/loader/bundle.ts';
import type { BuiltEntry, GateBindings, ParsedPlugin, ParsedSkill } from '../../kernel/contracts/gate-check.ts';
import { isKernelError } from '../../kernel/errors.ts';
import { describeZodError, parseYaml, validateManifest } from '../../kernel/manifest/load.ts';
import { pluginManifestSchema } from '../../kernel/manifest/plugin-manifest.ts';
import { loadSandboxProfile } from '../plugin-search/sandbox-profiles.ts';
import { parseSkillFile } from '../skills/parse-skill-file.ts';
import { beyondCeiling } from './ceiling.ts';
import { guardImports } from './import-guard.ts';
import { runTestInDeno } from './reference-deno.ts';
import { runTestInSandbox } from './sandbox-runs.ts';
import type { GateSession } from './session.ts';

function parseSkill(session: GateSession, text: string): ParsedSkill {
  const parsed = parseSkillFile(Buffer.from(text, 'utf8'), session.name);
  if (!parsed.ok) return { ok: false, field: parsed.field, reason: parsed.reason };
  return { ok: true, frontmatter: parsed.frontmatter as Record<string, unknown>, body_lines: parsed.bodyLines, warnings: parsed.warnings, digest: parsed.digest };
}

/** Any parser failure (syntax, an alias bomb, a stack overflow in a deep document) is the manifest's error. */
function parsePlugin(text: string): ParsedPlugin {
  try {
    const manifest = validateManifest(pluginManifestSchema, parseYaml(text, 'plugin.yaml'), 'plugin.yaml');
    return { ok: true, manifest: manifest as unknown as Record<string, unknown> };
  } catch (error) {
    if (isKernelError(error)) return { ok: false, code: error.code, reason: error.message };
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { ok: false, code: 'RTC_ERR_MANIFEST_YAML', reason: `plugin.yaml: cannot be read as YAML (${message})` };
  }
}

/** What a draft's plugin.yaml asks beyond the gate: permissions, bindings, limits, a weaker sandbox tier. */
function grantProblems(session: GateSession, value: Record<string, unknown>): { problems: string[] } {
  const parsed = pluginManifestSchema.safeParse(value);
  if (!parsed.success) {
    const { field, reason } = describeZodError(parsed.error);
    return { problems: [`plugin.yaml: ${field}: ${reason}`] };
  }
  const manifest = parsed.data;
  const { profile, limits, sandbox } = session.gate;
  const vars = { plugin: session.dirs.draft, scratch: session.dirs.scratch };
  const problems: string[] = [];
  const over = beyondCeiling(manifest.permissions, profile.ceiling, session.dirs.draft, vars);
  if (over.length > 0) problems.push(`permissions: asks for ${over.join(', ')} beyond the "${profile.name}" gate ceiling`);
  const extraBindings = manifest.bindings.filter((b) => !profile.bindings.includes(b));
  if (extraBindings.length > 0) problems.push(`bindings: asks for ${extraBindings.join(', ')}, which the "${profile.name}" gate does not allow`);
  for (const [key, asked] of Object.entries(manifest.limits)) {
    const cap = limits[key as keyof typeof limits];
    if (asked !== undefined && asked > cap) problems.push(`limits.${key}: asks for ${asked}, above the gate's ${cap}`);
  }
  try {
    const declared = loadSandboxProfile(manifest.sandbox);
    if (declared.tier === 'in-process' && sandbox.tier === 'process') {
      problems.push(`sandbox: asks for "${declared.name}" (in-process isolates, for first-party code); a draft evaluated under "${sandbox.name}" runs in the process tier`);
    }
  } catch (error) {
    if (!isKernelError(error)) throw error;
    problems.push(`sandbox: ${error.message}`);
  }
  return { problems };
}

/** A file of the snapshot, by its draft-relative path; anything else is refused. */
function snapshotFile(session: GateSession, entry: string): string | null {
  const normal = path.posix.normalize(entry);
  const known = session.snapshot?.entries.find((e) => e.path === normal && e.type === 'file');
  return known ? normal : null;
}

async function bundle(session: GateSession, entry: string, role: BuiltEntry['role']): Promise<BuiltEntry> {
  const rel = snapshotFile(session, entry);
  if (rel === null) return { entry, role, error: `"${entry}" is not a file of the draft's snapshot` };
  const file = path.join(session.dirs.draft, rel);
  const guard = await guardImports(file, session.dirs.draft);
  let built: BuiltEntry;
  if (!guard.ok) built = { entry: rel, role, error: guard.reason };
  else {
    try {
      const b = await bundleEntry(file, session.dirs.build);
      built = { entry: rel, role, bundle: { digest: `sha256:${b.digest}`, size: b.size, inputs: b.inputs } };
    } catch (error) {
      if (!isKernelError(error)) throw error;
      built = { entry: rel, role, error: error.message };
    }
  }
  session.built.set(rel, built);
  return built;
}

/** Only a test the build binding bundled in this run may be run. */
function builtTest(session: GateSession, file: string): string {
  const rel = path.posix.normalize(file);
  const built = session.built.get(rel);
  if (!built || built.role !== 'test' || !built.bundle) throw new DraftRefusal(`"${file}" is not a test the build check bundled in this gate run`);
  return rel;
}

/** A request a check may not make (not a fault of the gate): it reaches the check as an Error. */
class DraftRefusal extends Error {}

/** The bindings one check is served, each method watched for faults of the gate itself. */
export function gateBindingsFor(session: GateSession, faults: string[]): GateBindings {
  const watch = <A extends unknown[], R>(name: string, fn: (...args: A) => R | Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } catch (error) {
        if (!(error instanceof DraftRefusal)) faults.push(`${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        throw error;
      }
    };
  // The manifest methods are synchronous in the contract; their faults are watched the same way.
  const watchSync = <A extends unknown[], R>(name: string, fn: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return fn(...args);
      } catch (error) {
        faults.push(`${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        throw error;
      }
    };
  return {
    manifest: {
      skill: watchSync('gate.manifest.skill', (text: string) => parseSkill(session, text)),
      plugin: watchSync('gate.manifest.plugin', (text: string) => parsePlugin(text)),
      grant: watchSync('gate.manifest.grant', (manifest: Record<string, unknown>) => grantProblems(session, manifest)),
    },
    build: { bundle: watch('gate.build.bundle', (entry: string, role: BuiltEntry['role']) => bundle(session, entry, role)) },
    sandbox: { test: watch('gate.sandbox.test', (file: string, pass: number) => runTestInSandbox(session, builtTest(session, file), pass)) },
    deno: {
      available: watchSync('gate.deno.available', () => ({ deno: session.deno })),
      test: watch('gate.deno.test', (file: string) => runTestInDeno(session, builtTest(session, file))),
    },
  };
}
