/**
 * What a workspace records of the skills visible to its run: each skill's id, name,
 * description, scope and the digest of its SKILL.md, and each refused skill with its
 * reason. Never bodies, never host paths: the record says which skill text the run could
 * see, and the digest pins it.
 */
import type { SkillMeta, SkillRefusal } from '../skills/catalog.ts';

export const SKILL_CATALOG_FORMAT = 'runtimectl.skill-catalog/1';

export interface SkillCatalogRecord {
  format: typeof SKILL_CATALOG_FORMAT;
  skills: Array<{ id: string; name: string; description: string; scope: string; persona?: string; digest: string }>;
  refused: Array<{ folder: string; scope: string; persona?: string; field: string; reason: string }>;
}

/** Anything with skills (a SkillCatalog, or a selection) and optionally its refusals. */
export type VisibleSkills = { skills: readonly SkillMeta[]; refused?: readonly SkillRefusal[] } | readonly SkillMeta[];

export function skillCatalogRecord(visible: VisibleSkills | undefined): SkillCatalogRecord {
  const skills = visible === undefined ? [] : 'skills' in visible ? visible.skills : visible;
  const refused = visible !== undefined && 'refused' in visible ? (visible.refused ?? []) : [];
  const persona = (p: string | undefined) => (p === undefined ? {} : { persona: p });
  return {
    format: SKILL_CATALOG_FORMAT,
    skills: [...skills]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((s) => ({ id: s.id, name: s.name, description: s.description, scope: s.scope, ...persona(s.persona), digest: s.digest })),
    refused: refused.map((r) => ({ folder: r.folder, scope: r.scope, ...persona(r.persona), field: r.field, reason: r.reason })),
  };
}
