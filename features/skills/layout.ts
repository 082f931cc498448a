/**
 * The repository's skill layout: `skills/shared/<name>/SKILL.md` for skills every persona
 * may select, `skills/persona/<persona-id>/<name>/SKILL.md` for one persona's own. A folder
 * without `shared/` or `persona/` inside is taken as one flat root of shared skills (how
 * third-party collections such as anthropics/skills are laid out).
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SkillRoot } from './catalog.ts';

/** Extra skill folders, separated by `:` (like PATH), after the built-in skills/. */
export const SKILLS_PATH_ENV = 'RUNTIMECTL_SKILLS_PATH';

/** The repo's own `skills/` folder. */
export const REPO_SKILLS_DIR = path.resolve(import.meta.dirname, '..', '..', 'skills');

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Roots for one skills folder; persona roots sorted by persona id. */
export function skillRootsForDir(dir: string): SkillRoot[] {
  const shared = path.join(dir, 'shared');
  const persona = path.join(dir, 'persona');
  if (!isDir(shared) && !isDir(persona)) return [{ dir, scope: 'shared' }];
  const roots: SkillRoot[] = [];
  if (isDir(shared)) roots.push({ dir: shared, scope: 'shared' });
  if (isDir(persona)) {
    for (const entry of readdirSync(persona, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.isDirectory() && !entry.name.startsWith('.')) roots.push({ dir: path.join(persona, entry.name), scope: 'persona', persona: entry.name });
    }
  }
  return roots;
}

/** Roots for the skills one persona can see: the shared ones and its own. */
export function skillRootsForPersona(dir: string, personaId: string): SkillRoot[] {
  return skillRootsForDir(dir).filter((root) => root.scope === 'shared' || root.persona === personaId);
}
