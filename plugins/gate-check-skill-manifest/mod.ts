/**
 * gate-check.skill-manifest: the draft's SKILL.md follows the Agent Skills rules (front
 * matter with the allowed keys only, name equal to the folder name, length limits), read by
 * the same parser the skill catalog uses; and its plugin.yaml, when it has one, validates
 * against the plugin manifest schema, is a skill, and names an entry that exists. Any
 * failure to parse plugin.yaml (syntax, an alias bomb) is the manifest's own error, named.
 */
import { deno, gate } from '../gate-check-shared/globals.ts';
import { result, type GateCheckInput, type GateCheckResult } from '../gate-check-shared/results.ts';

type Part = { ok: boolean; detail: Record<string, unknown>; problem?: string };

function has(input: GateCheckInput, file: string): boolean {
  return input.draft.files.some((f) => f.path === file && f.type === 'file');
}

async function skillFile(input: GateCheckInput): Promise<Part & { name?: string }> {
  if (!has(input, 'SKILL.md')) {
    return { ok: false, detail: { file: 'SKILL.md', present: false }, problem: 'SKILL.md: (file): missing: a skill draft needs a SKILL.md (a regular file) at its top' };
  }
  const parsed = await gate.manifest.skill(await deno.readTextFile(`${input.draft.root}/SKILL.md`));
  if (!parsed.ok) return { ok: false, detail: { file: 'SKILL.md', present: true, field: parsed.field, reason: parsed.reason }, problem: `SKILL.md: ${parsed.field}: ${parsed.reason}` };
  const name = String(parsed.frontmatter.name);
  return { ok: true, name, detail: { file: 'SKILL.md', present: true, frontmatter: parsed.frontmatter, body_lines: parsed.body_lines, warnings: parsed.warnings, digest: parsed.digest } };
}

async function pluginFile(input: GateCheckInput): Promise<Part> {
  const file = 'plugin.yaml';
  if (!input.draft.files.some((f) => f.path === file)) return { ok: true, detail: { file, present: false } };
  if (!has(input, file)) return { ok: false, detail: { file, present: true, valid: false }, problem: `${file}: (file): not a regular file` };
  const parsed = await gate.manifest.plugin(await deno.readTextFile(`${input.draft.root}/${file}`));
  if (!parsed.ok) return { ok: false, detail: { file, present: true, valid: false, code: parsed.code, problem: parsed.reason }, problem: parsed.reason };
  const manifest = parsed.manifest as { kind: string; entry: string; id: string };
  const fail = (problem: string): Part => ({ ok: false, detail: { file, present: true, valid: false, manifest, problem }, problem });
  if (manifest.kind !== 'skill') return fail(`${file}: kind: a skill draft's plugin must be of kind "skill" (got "${manifest.kind}")`);
  const entry = manifest.entry.replace(/^\.\//, '');
  if (!has(input, entry)) return fail(`${file}: entry: file "${manifest.entry}" is not in the draft`);
  return { ok: true, detail: { file, present: true, valid: true, manifest } };
}

export async function check(input: GateCheckInput): Promise<GateCheckResult> {
  const skill = await skillFile(input);
  const plugin = await pluginFile(input);
  const problems = [skill.problem, plugin.problem].filter((p): p is string => p !== undefined);
  const output = { skill: skill.detail, plugin: plugin.detail };
  if (problems.length > 0) return result('failed', problems.join('; '), output);
  const pluginNote = plugin.detail.present ? `, plugin.yaml valid (${String((plugin.detail.manifest as { id: string }).id)})` : ', no plugin.yaml';
  return result('passed', `SKILL.md valid (name "${skill.name}")${pluginNote}`, output);
}
