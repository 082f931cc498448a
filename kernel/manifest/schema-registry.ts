/**
 * Every file format the kernel reads, by name. `npm run schemas` writes each one's JSON
 * Schema to `schemas/<name>.schema.json` from the same zod schema the kernel validates
 * with, so editors check YAML against exactly what the kernel accepts (a test fails when
 * a written schema is stale). A new format is one line here.
 */
import type { z } from 'zod';
import { pluginManifestSchema } from './plugin-manifest.ts';
import { sandboxProfileSchema } from './sandbox-profile.ts';
import { EventEnvelopeSchema } from '../events/envelope.ts';
import { ScidexRuntimeManifestSchema } from '../../features/runtime-manifest/schema.ts';
import { SkillFrontmatterSchema } from '../../features/skills/frontmatter-schema.ts';
import { personaProfileSchema } from '../personas/profile-schema.ts';
import { gateProfileSchema } from '../../features/gate/profile-schema.ts';
import { persistenceConfigSchema } from '../../features/persistence/config-schema.ts';
import { historyConfigSchema } from '../../features/history/policy-schema.ts';

export interface RegisteredSchema {
  /** File stem under schemas/, e.g. `plugin-manifest`. */
  name: string;
  title: string;
  schema: z.ZodType;
}

export const SCHEMAS: RegisteredSchema[] = [
  { name: 'plugin-manifest', title: 'runtimectl plugin manifest (plugin.yaml)', schema: pluginManifestSchema },
  { name: 'sandbox-profile', title: 'runtimectl sandbox profile (sandboxes/profiles/*.yaml)', schema: sandboxProfileSchema },
  { name: 'skill-frontmatter', title: 'SKILL.md front matter (Agent Skills)', schema: SkillFrontmatterSchema },
  { name: 'scidex-runtime', title: 'scidex-runtime.yaml runtime manifest', schema: ScidexRuntimeManifestSchema },
  { name: 'event', title: 'runtimectl event envelope', schema: EventEnvelopeSchema },
  { name: 'persona-profile', title: 'runtimectl persona profile (policies/personas/*.yaml)', schema: personaProfileSchema },
  { name: 'gate-profile', title: 'runtimectl gate profile (policies/gates/*.yaml)', schema: gateProfileSchema },
  { name: 'persistence-config', title: "runtimectl persona persistence choice (<state>/<persona>/persistence.yaml)", schema: persistenceConfigSchema },
  { name: 'history-config', title: "runtimectl persona history policy: segments and retention (<state>/<persona>/history.yaml)", schema: historyConfigSchema },
];
