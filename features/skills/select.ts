/**
 * Selects skills by name or glob, as persona profiles list them: `shared/*`,
 * `persona/jerome/*`, `budget-*`, `reviewer-handoff`. A pattern with a `/` matches the
 * skill id (`shared/<name>`, `persona/<persona>/<name>`); one without matches the bare
 * name in any scope. `*` and `?` stay within one path segment, `**` crosses segments.
 */
import { didYouMean } from '../profiles/suggest.ts';
import type { SkillCatalog, SkillMeta } from './catalog.ts';

function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (ch === '*') source += '[^/]*';
    else if (ch === '?') source += '[^/]';
    else source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

function matcher(pattern: string): (skill: SkillMeta) => boolean {
  const re = globToRegExp(pattern);
  return pattern.includes('/') ? (skill) => re.test(skill.id) : (skill) => re.test(skill.name);
}

type HasSkills = Pick<SkillCatalog, 'skills'>;

/** The skills any pattern matches, once each, in catalog order. */
export function selectSkills(catalog: HasSkills, patterns: readonly string[]): SkillMeta[] {
  const tests = patterns.map(matcher);
  return catalog.skills.filter((skill) => tests.some((test) => test(skill)));
}

/** Patterns that matched no skill: a typo in a profile, or a skill that was refused. */
export function unmatchedPatterns(catalog: HasSkills, patterns: readonly string[]): string[] {
  return patterns.filter((pattern) => !catalog.skills.some(matcher(pattern)));
}

/** A pattern with no wildcard names one skill: matching nothing is a typo, not an empty glob. */
export function isExactName(pattern: string): boolean {
  return !/[*?]/.test(pattern);
}

/**
 * The profile's exact skill names that match no loaded skill, each with why: refused (its
 * SKILL.md is broken), or unknown with "did you mean" when one loaded skill is close.
 * Globs that match nothing are not here (a persona may have no skills of its own yet).
 */
export function unknownSkillNames(catalog: Pick<SkillCatalog, 'skills' | 'refused'>, patterns: readonly string[]): { pattern: string; why: string }[] {
  const out: { pattern: string; why: string }[] = [];
  for (const pattern of unmatchedPatterns(catalog, patterns).filter(isExactName)) {
    const name = pattern.split('/').at(-1) ?? pattern;
    const refused = catalog.refused.find((r) => r.folder === name);
    if (refused) {
      out.push({ pattern, why: `the skill was refused (${refused.message})` });
      continue;
    }
    const candidates = pattern.includes('/') ? catalog.skills.map((s) => s.id) : catalog.skills.map((s) => s.name);
    out.push({ pattern, why: `matches no skill${didYouMean(pattern, candidates)}` });
  }
  return out;
}
