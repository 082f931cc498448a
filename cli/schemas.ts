/**
 * Every file format runtimectl reads, by name: the kernel's own and its contracts
 * (cli/schema-registry.ts) and the features'. `npm run schemas` writes each one's
 * JSON Schema to `schemas/<name>.schema.json` and the contract reference docs/plugin-contracts.md.
 */
import { KERNEL_SCHEMAS, type RegisteredSchema } from './schema-registry.ts';
import { gateProfileSchema } from '../features/gate/profile-schema.ts';
import { ScidexRuntimeManifestSchema } from '../features/runtime-manifest/schema.ts';
import { SkillFrontmatterSchema } from '../features/skills/frontmatter-schema.ts';
import { historyConfigSchema } from '../features/history/policy-schema.ts';

export const SCHEMAS: RegisteredSchema[] = [
  ...KERNEL_SCHEMAS,
  { name: 'skill-frontmatter', title: 'SKILL.md front matter (Agent Skills)', schema: SkillFrontmatterSchema },
  { name: 'scidex-runtime', title: 'scidex-runtime.yaml runtime manifest', schema: ScidexRuntimeManifestSchema },
  { name: 'gate-profile', title: 'runtimectl gate profile (policies/gates/*.yaml)', schema: gateProfileSchema },
  { name: 'history-config', title: "runtimectl persona history policy: segments and retention (<state>/<persona>/history.yaml)", schema: historyConfigSchema },
];
