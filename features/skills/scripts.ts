/**
 * The scripts a persona's selected skills ship, as tools (features/skills/script-tool.ts runs
 * them). A skill folder may hold `scripts/*.ts` and `scripts/*.js` (the Agent Skills format's
 * `scripts/`); each regular file there is one tool, `skill.<skill name>.<file stem>`, taking
 * `{args: string[]}` as its `Deno.args`.
 *
 * What a script may do is what its skill's manifest requests: the `plugin.yaml` beside
 * SKILL.md, a plugin manifest like any other (the one schema, kernel/manifest/plugin-manifest.ts:
 * `id`, `version`, `kind: skill`, `description`, `permissions:` in Deno's vocabulary with
 * `${plugin}` = the skill folder, `limits:`, `sandbox:`; `entry` and `exports` only for a skill
 * with a module), capped by the persona's `allow` and the sandbox profile's ceiling. A skill
 * without one requests nothing: its scripts run with no permission at all (they compute on
 * their arguments and print).
 *
 * A skill's code is not the kernel's: its scripts run under `default` (the process tier). A
 * manifest asking for an in-process profile (`sandbox: trusted`) gets it only when the
 * persona's `trust:` names the manifest's id (the operator's grant); otherwise its scripts
 * still run, under `default`, and the spec says what was asked (`requestedProfile`).
 *
 * A script that cannot be offered (a manifest that does not validate, a symlink, two files
 * with one stem) is listed as a problem naming the file, and the other tools stay usable.
 */
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { errorLine, kernelError } from '../../kernel/errors.ts';
import { readManifestFile } from '../../kernel/manifest/load.ts';
import { DEFAULT_PLUGIN_PROFILE, pluginManifestSchema, type PluginManifest } from '../../kernel/manifest/plugin-manifest.ts';
import { loadSandboxProfile } from '../plugin-search/sandbox-profiles.ts';
import type { PersonaProfile } from '../../kernel/personas/profile-schema.ts';
import { scriptTraceId, type ScriptToolSpec } from '../persona/tools/script-spec.ts';
import { loadSkillCatalog, type SkillMeta } from './catalog.ts';
import { REPO_SKILLS_DIR, skillRootsForPersona } from './layout.ts';
import { selectSkills } from './select.ts';

const SCRIPT_FILE = /^[^.][^/]*\.(ts|js)$/;

/** A skill's plugin.yaml, read with the one plugin manifest schema; it must say it is a skill's. */
function readSkillManifest(file: string, root: string): PluginManifest {
  const manifest = readManifestFile(pluginManifestSchema, file, root);
  if (manifest.kind !== 'skill') throw kernelError('RTC_ERR_MANIFEST_INVALID', `${path.relative(root, file)}: kind: the plugin.yaml beside a SKILL.md is kind skill, not ${manifest.kind}`, { details: { field: 'kind' } });
  return manifest;
}

/** The profile a skill's scripts run under, and the in-process one its manifest asked for when that was not granted. */
function scriptProfile(asked: string, id: string, trust: readonly string[]): { profile: string; requested?: string } {
  if (loadSandboxProfile(asked).tier !== 'in-process' || trust.includes(id)) return { profile: asked };
  return { profile: DEFAULT_PLUGIN_PROFILE, requested: asked };
}

/**
 * The script tools of one skill (none when it has no scripts/ folder). `trust`: the persona's
 * grant (profile `trust:`), the manifest ids whose in-process profile it allows.
 */
export function skillScripts(skill: SkillMeta, trust: readonly string[] = []): ScriptToolSpec[] {
  const folder = path.join(skill.dir, 'scripts');
  let names: string[];
  try {
    names = readdirSync(folder).filter((n) => SCRIPT_FILE.test(n)).sort();
  } catch {
    return [];
  }
  if (names.length === 0) return [];
  let grant: { permissions: PluginManifest['permissions']; limits: PluginManifest['limits']; profile: string; id?: string; requested?: string } = { permissions: {}, limits: {}, profile: DEFAULT_PLUGIN_PROFILE };
  let refusedAll: string | undefined;
  const manifest = path.join(skill.dir, 'plugin.yaml');
  if (exists(manifest)) {
    try {
      const m = readSkillManifest(manifest, path.dirname(skill.dir));
      const { profile, requested } = scriptProfile(m.sandbox, m.id, trust);
      grant = { permissions: m.permissions, limits: m.limits, profile, id: m.id, ...(requested ? { requested } : {}) };
    } catch (error) {
      refusedAll = `its skill's manifest is refused: ${errorLine(error)}`;
    }
  }
  const stems = new Map<string, number>();
  for (const n of names) stems.set(stem(n), (stems.get(stem(n)) ?? 0) + 1);
  return names.map((file) => {
    const abs = path.join(folder, file);
    const spec: ScriptToolSpec = {
      name: `skill.${skill.name}.${stem(file)}`,
      traceId: scriptTraceId(skill.id, file),
      file: abs,
      dir: skill.dir,
      description: `Runs scripts/${file} of the skill "${skill.name}" (its arguments are the script's command line; the answer is its exit code, stdout and stderr). The skill: ${skill.description}`.slice(0, 1024),
      permissions: grant.permissions,
      profile: grant.profile,
      limits: grant.limits,
      ...(grant.id ? { manifestId: grant.id } : {}),
      ...(grant.requested ? { requestedProfile: grant.requested } : {}),
    };
    const why = refusedAll ?? refusal(abs, file, stems);
    return why ? { ...spec, refused: why } : spec;
  });
}

function refusal(abs: string, file: string, stems: Map<string, number>): string | undefined {
  let info;
  try {
    info = lstatSync(abs);
  } catch (error) {
    return `scripts/${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  // A symlink could name a file outside the skill folder: only the folder's own files are its scripts.
  if (info.isSymbolicLink()) return `scripts/${file} is a symbolic link; a script tool is a regular file inside the skill folder`;
  if (!info.isFile()) return `scripts/${file} is not a regular file`;
  if ((stems.get(stem(file)) ?? 0) > 1) return `scripts/${file}: another script of the skill has the stem "${stem(file)}", so neither can be named`;
  return undefined;
}

function stem(file: string): string {
  return file.slice(0, file.lastIndexOf('.'));
}

function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * The composition's `scriptTools`: for a persona, the scripts of the skills its profile
 * selects, found in the same skill folders (and scopes) the loop's skills step reads.
 */
export function skillScriptTools(skillsDirs: readonly string[] = []): (profile: PersonaProfile) => Promise<ScriptToolSpec[]> {
  const dirs = skillsDirs.length > 0 ? skillsDirs : [REPO_SKILLS_DIR];
  return async (profile) => {
    if (profile.skills.length === 0) return [];
    const catalog = await loadSkillCatalog(dirs.flatMap((dir) => skillRootsForPersona(dir, profile.id)), { displayRoot: dirs[0]! });
    return selectSkills(catalog, profile.skills).flatMap((skill) => skillScripts(skill, profile.trust));
  };
}
