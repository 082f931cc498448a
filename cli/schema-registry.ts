/**
 * Every file format the kernel itself reads, by name, and the plugin contracts it publishes.
 * `npm run schemas` writes each one's JSON Schema to `schemas/<name>.schema.json` from the
 * same zod schema the kernel validates with, so editors check YAML against exactly what the
 * kernel accepts (a test fails when a written schema is stale). Features add theirs in the
 * composition root (cli/schemas.ts); a new kernel format is one line here.
 */
import type { z } from 'zod';
import { pluginManifestSchema } from '../kernel/manifest/plugin-manifest.ts';
import { sandboxProfileSchema } from '../kernel/manifest/sandbox-profile.ts';
import { EventEnvelopeSchema } from '../kernel/events/envelope.ts';
import { personaProfileSchema } from '../kernel/personas/profile-schema.ts';
import { persistenceConfigSchema } from '../features/persistence/state/persistence-config-schema.ts';
import { harnessManifestSchema } from '../kernel/loop/harness.ts';
import { PLUGIN_CONTRACTS } from './contract-catalog.ts';

export interface RegisteredSchema {
  /** File stem under schemas/, e.g. `plugin-manifest`. */
  name: string;
  title: string;
  schema: z.ZodType;
}

/** The JSON Schemas of the plugin contracts (schemas/contract-*.schema.json), one per call input and output. */
export const CONTRACT_SCHEMAS: RegisteredSchema[] = PLUGIN_CONTRACTS.flatMap((c) => [
  ...c.calls.flatMap((call) => [
    ...(call.input ? [{ name: call.input.name, title: `${c.kind} contract: what ${call.export}() is called with`, schema: call.input.schema }] : []),
    ...(call.output ? [{ name: call.output.name, title: `${c.kind} contract: what ${call.export}() returns`, schema: call.output.schema }] : []),
  ]),
  ...(c.manifest ? [{ name: c.manifest.name, title: `${c.kind} contract: the manifest's ${c.manifest.field}`, schema: c.manifest.schema }] : []),
]);

export const KERNEL_SCHEMAS: RegisteredSchema[] = [
  { name: 'plugin-manifest', title: 'runtimectl plugin manifest (plugin.yaml)', schema: pluginManifestSchema },
  { name: 'sandbox-profile', title: 'runtimectl sandbox profile (sandboxes/profiles/*.yaml)', schema: sandboxProfileSchema },
  { name: 'event', title: 'runtimectl event envelope', schema: EventEnvelopeSchema },
  { name: 'persona-profile', title: 'runtimectl persona profile (policies/personas/*.yaml)', schema: personaProfileSchema },
  { name: 'harness', title: 'runtimectl harness (policies/harnesses/*.yaml): the loop steps', schema: harnessManifestSchema },
  { name: 'persistence-config', title: "runtimectl persona persistence record (<state>/<persona>/persistence.yaml)", schema: persistenceConfigSchema },
  ...CONTRACT_SCHEMAS,
];
