/**
 * The schema of `<state>/<persona>/persistence.yaml` (see persistence-config.ts), in a module of its own
 * so the schema registry can load it without the storage code.
 */
import { z } from 'zod';

export const PERSISTENCE_CONFIG_FILE = 'persistence.yaml';
export const PERSISTENCE_SCHEMA_VERSION = 1;
export const DEFAULT_BACKEND_NAME = 'jsonl-fs';
export const KNOWN_BACKENDS = ['jsonl-fs', 'sqlite', 'postgres'] as const;

/** A backend name is the part after `persistence.` in its plugin id. */
export const BACKEND_NAME_PATTERN = /^[a-z][a-z0-9-]*$/;

export const persistenceConfigSchema = z
  .strictObject({
    $schema: z.string().optional(),
    schema_version: z.number().int().min(1).describe('format version of this file'),
    backend: z
      .string()
      .regex(BACKEND_NAME_PATTERN, 'a backend name such as jsonl-fs or sqlite (the plugin id without "persistence.")')
      .describe('the persistence plugin holding this persona\'s state: persistence.<backend>'),
  })
  .describe("A persona's persistence backend choice (<state>/<persona>/persistence.yaml)");

export type PersistenceConfig = z.output<typeof persistenceConfigSchema>;

