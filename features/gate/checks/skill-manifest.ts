/**
 * `skill-manifest`: the draft's SKILL.md follows the Agent Skills rules (front matter with
 * the allowed keys only, name equal to the folder name, length limits), checked by the
 * same parser the skill catalog uses; and its plugin.yaml, when it has one, validates
 * against the plugin manifest schema, is a skill, and names an entry that exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isKernelError } from '../../../kernel/errors.ts';
import { parseYaml, validateManifest } from '../../../kernel/manifest/load.ts';
import { pluginManifestSchema } from '../../../kernel/manifest/plugin-manifest.ts';
import { parseSkillFile } from '../../skills/parse-skill-file.ts';
import type { CheckOutcome, GateContext } from '../context.ts';

function checkSkillFile(ctx: GateContext): { ok: boolean; detail: Record<string, unknown>; problem?: string } {
  const file = path.join(ctx.dirs.draft, 'SKILL.md');
  if (!ctx.snapshot?.entries.some((e) => e.path === 'SKILL.md' && e.type === 'file') || !existsSync(file)) {
    return { ok: false, detail: { file: 'SKILL.md', present: false }, problem: 'SKILL.md: (file): missing: a skill draft needs a SKILL.md (a regular file) at its top' };
  }
  const parsed = parseSkillFile(readFileSync(file), ctx.name);
  if (!parsed.ok) return { ok: false, detail: { file: 'SKILL.md', present: true, field: parsed.field, reason: parsed.reason }, problem: `SKILL.md: ${parsed.field}: ${parsed.reason}` };
  ctx.skillName = parsed.frontmatter.name;
  return { ok: true, detail: { file: 'SKILL.md', present: true, frontmatter: parsed.frontmatter, body_lines: parsed.bodyLines, warnings: parsed.warnings, digest: parsed.digest } };
}

function checkPluginFile(ctx: GateContext): { ok: boolean; detail: Record<string, unknown>; problem?: string } {
  const file = path.join(ctx.dirs.draft, 'plugin.yaml');
  if (!ctx.snapshot?.entries.some((e) => e.path === 'plugin.yaml')) return { ok: true, detail: { file: 'plugin.yaml', present: false } };
  const where = 'plugin.yaml';
  try {
    const manifest = validateManifest(pluginManifestSchema, parseYaml(readFileSync(file, 'utf8'), where), where);
    const fail = (problem: string) => {
      ctx.pluginError = problem;
      return { ok: false, detail: { file: where, present: true, manifest, problem }, problem };
    };
    if (manifest.kind !== 'skill') return fail(`${where}: kind: a skill draft's plugin must be of kind "skill" (got "${manifest.kind}")`);
    const entry = ctx.snapshot.entries.find((e) => e.path === path.posix.normalize(manifest.entry ?? ''));
    if (!entry) return fail(`${where}: entry: file "${manifest.entry}" is not in the draft`);
    ctx.plugin = manifest;
    return { ok: true, detail: { file: where, present: true, manifest } };
  } catch (error) {
    if (!isKernelError(error)) throw error;
    ctx.pluginError = error.message;
    return { ok: false, detail: { file: where, present: true, code: error.code, problem: error.message }, problem: error.message };
  }
}

export function skillManifestCheck(ctx: GateContext): CheckOutcome {
  const skill = checkSkillFile(ctx);
  const plugin = checkPluginFile(ctx);
  const problems = [skill.problem, plugin.problem].filter((p): p is string => p !== undefined);
  const output = { skill: skill.detail, plugin: plugin.detail };
  if (problems.length > 0) return { status: 'failed', reason: problems.join('; '), output };
  const pluginNote = plugin.detail.present ? `, plugin.yaml valid (${ctx.plugin?.id})` : ', no plugin.yaml';
  return { status: 'passed', reason: `SKILL.md valid (name "${ctx.skillName}")${pluginNote}`, output };
}
