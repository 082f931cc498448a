/**
 * The front matter of a `SKILL.md`, by the Agent Skills format (agentskills.io): required
 * `name` and `description`, optional `license`, `compatibility`, `metadata` and
 * `allowed-tools`, and nothing else. The rule "name equals the folder's name" needs the
 * folder, so it is checked by the parser (parse-skill-file.ts), not here.
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
  .max(SKILL_NAME_MAX, `must be at most ${SKILL_NAME_MAX} characters`)
  .regex(/^[a-z0-9-]+$/, 'may contain only lowercase letters a-z, digits 0-9 and "-"')
  .refine((name) => !name.startsWith('-') && !name.endsWith('-'), 'must not start or end with "-"')
  .refine((name) => !name.includes('--'), 'must not contain "--"');

export const SkillFrontmatterSchema = z
  .strictObject({
    name: SkillNameSchema,
    description: requiredString()
      .min(1, 'must not be empty')
      .max(SKILL_DESCRIPTION_MAX, `must be at most ${SKILL_DESCRIPTION_MAX} characters`),
    license: z.string().min(1, 'must not be empty').optional(),
    compatibility: z
      .string()
      .min(1, 'must not be empty')
      .max(SKILL_COMPATIBILITY_MAX, `must be at most ${SKILL_COMPATIBILITY_MAX} characters`)
      .optional(),
    /** Client-specific properties; values are strings (quote versions: `version: "1.0"`). */
    metadata: z.record(z.string(), z.string({ error: 'must be a string; quote values such as version: "1.0"' })).optional(),
    /** Space-separated tool patterns (experimental in the format). */
    'allowed-tools': z.string().optional(),
  })
  .describe('Front matter of an Agent Skills SKILL.md');

export type SkillFrontmatter = z.output<typeof SkillFrontmatterSchema>;
