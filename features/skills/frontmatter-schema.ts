/**
 * The front matter of a `SKILL.md`, by the Agent Skills format (agentskills.io): required
 * `name` and `description`, optional `license`, `compatibility`, `metadata` and
 * `allowed-tools`, and nothing else. The rule "name equals the folder's name" needs the
 * folder, so it is checked by the parser (parse-skill-file.ts), not here; so is reading a
 * plain YAML scalar (`version: 1.0`, `name: 2024`) as its text, which needs the YAML source.
 *
 * Names follow the reference validator (skills-ref): NFKC-normalised, lowercase, Unicode
 * letters and digits and "-" (`技能`, `мой-навык`, `2024` are names). Where the reference and
 * the specification disagree, the specification's text is taken (features/skills/README.md).
 */
import { z } from 'zod';

export const SKILL_NAME_MAX = 64;
export const SKILL_DESCRIPTION_MAX = 1024;
export const SKILL_COMPATIBILITY_MAX = 500;
/** Advised, not enforced: a longer body is loaded with a warning. */
export const SKILL_BODY_ADVISED_LINES = 500;

/** `is required` for a missing field; zod's own wording for a value of the wrong type. */
const requiredString = () => z.string({ error: (issue) => (issue.input === undefined ? 'is required' : undefined) });

/** Each rule is its own check so the refusal names the rule that was broken. */
export const SkillNameSchema = requiredString()
  .min(1, 'must not be empty')
  .refine((name) => [...name].length <= SKILL_NAME_MAX, `must be at most ${SKILL_NAME_MAX} characters`)
  .regex(/^[\p{L}\p{N}-]+$/u, 'may contain only letters, digits (of any script) and "-"')
  .refine((name) => name === name.toLowerCase(), 'must be lowercase')
  .refine((name) => !name.startsWith('-') && !name.endsWith('-'), 'must not start or end with "-"')
  .refine((name) => !name.includes('--'), 'must not contain "--"');

export const SkillFrontmatterSchema = z
  .strictObject({
    name: SkillNameSchema,
    description: requiredString()
      .min(1, 'must not be empty or blank')
      .refine((text) => text.trim() !== '', 'must not be empty or blank')
      .max(SKILL_DESCRIPTION_MAX, `must be at most ${SKILL_DESCRIPTION_MAX} characters`),
    /** No constraint in the specification (nor the reference): any text. */
    license: z.string().optional(),
    compatibility: z
      .string()
      .min(1, 'must not be empty')
      .max(SKILL_COMPATIBILITY_MAX, `must be at most ${SKILL_COMPATIBILITY_MAX} characters`)
      .optional(),
    /** Client-specific properties: string values (a plain scalar such as `version: 1.0` is read as its text, "1.0"). */
    metadata: z.record(z.string(), z.string({ error: 'must be a string (a plain value such as 1.0 or true is read as its text; a list or mapping is not a string)' })).optional(),
    /** Pre-approved tools: a space-delimited string or a list of strings (experimental in the format). */
    'allowed-tools': z
      .union([z.string(), z.array(z.string({ error: 'list items must all be strings' }))], { error: 'must be a space-delimited string or a list of strings' })
      .optional(),
  })
  .describe('Front matter of an Agent Skills SKILL.md');

export type SkillFrontmatter = z.output<typeof SkillFrontmatterSchema>;
