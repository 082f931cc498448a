/**
 * The scripts a persona's selected skills ship, as tools (kernel/tools/script-tool.ts runs
 * them). A skill folder may hold `scripts/*.ts` and `scripts/*.js` (the Agent Skills format's
 * `scripts/`); each regular file there is one tool, `skill.<skill name>.<file stem>`, taking
 * `{args: string[]}` as its `Deno.args`.
 *
 * What a script may do is what its skill's manifest requests: the `plugin.yaml` beside
 * SKILL.md (`kind: skill`, `permissions:` in Deno's vocabulary with `${plugin}` = the skill
 * folder, `limits:`, `sandbox:`), capped by the persona's `allow` and the sandbox profile's
 * ceiling. A skill without one requests nothing: its scripts run with no permission at all
 * (they compute on their arguments and print). Without `sandbox:` a script runs under the
 * `default` profile (the process tier): a skill's code is not the kernel's.
 *
 * A script that cannot be offered (a manifest that does not validate, a symlink, two files
 * with one stem) is listed as a problem naming the file, and the other tools stay usable.
 */
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { errorLine } from '../../kernel/errors.ts';
import { readManifestFile } from '../../kernel/manifest/load.ts';
import { permissionsSchema } from '../../kernel/manifest/permissions-schema.ts';
import { limitsSchema } from '../../kernel/manifest/sandbox-profile.ts';
import type { PersonaProfile } from '../../kernel/personas/profile-schema.ts';
import { scriptTraceId, type ScriptToolSpec } from '../../kernel/tools/script-tool.ts';
import { loadSkillCatalog, type SkillMeta } from './catalog.ts';
import { REPO_SKILLS_DIR, skillRootsForPersona } from './layout.ts';
import { selectSkills } from './select.ts';

/** The fields of a skill's plugin.yaml a script tool reads; the rest (entry, exports) is the skill's own code's. */
const skillManifestSchema = z.looseObject({
  kind: z.literal('skill'),
  permissions: permissionsSchema.default({}),
  limits: limitsSchema.partial().default({}),
  sandbox: z.string().regex(/^[a-z][a-z0-9-]*$/).optional(),
});

const SCRIPT_FILE = /^[^.][^/]*\.(ts|js)$/;
const DEFAULT_SCRIPT_PROFILE = 'default';

/** The script tools of one skill (none when it has no scripts/ folder). */
export function skillScripts(skill: SkillMeta): ScriptToolSpec[] {
  const folder = path.join(skill.dir, 'scripts');
  let names: string[];
  try {
    names = readdirSync(folder).filter((n) => SCRIPT_FILE.test(n)).sort();
  } catch {
    return [];
  }
  if (names.length === 0) return [];
  let grant: { permissions: z.output<typeof skillManifestSchema>['permissions']; limits: z.output<typeof skillManifestSchema>['limits']; profile: string } = { permissions: {}, limits: {}, profile: DEFAULT_SCRIPT_PROFILE };
  let refusedAll: string | undefined;
  const manifest = path.join(skill.dir, 'plugin.yaml');
  if (exists(manifest)) {
    try {
      const m = readManifestFile(skillManifestSchema, manifest, path.dirname(skill.dir));
      grant = { permissions: m.permissions, limits: m.limits, profile: m.sandbox ?? DEFAULT_SCRIPT_PROFILE };
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
    return selectSkills(catalog, profile.skills).flatMap(skillScripts);
  };
}
