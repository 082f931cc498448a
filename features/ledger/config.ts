/**
 * `orchestra/project/.orchestra/config.yaml`: which persona the ledger belongs to and where
 * its database is, relative to the persona directory. The path is relative so the whole
 * persona directory can move (a Docker volume mounted anywhere) and so no host path leaks
 * into the config or into logs.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { kernelError } from '../../kernel/errors.ts';
import { readManifestFile } from '../../kernel/manifest/load.ts';
import { newerSchemaError } from './format.ts';
import { LEDGER_SCHEMA_VERSION } from '../../plugins/ledger/model/records.ts';
import { PERSONA_ID_PATTERN } from '../../kernel/ids.ts';

export const LEDGER_DIR = 'orchestra';
export const DEFAULT_DB_PATH = 'orchestra/orchestra.db';
export const CONFIG_PATH = 'orchestra/project/.orchestra/config.yaml';
export const PROMPT_PATH = 'orchestra/project/.orchestra/prompt.md';
export const LAYOUT_DIRS = ['orchestra', 'orchestra/project/.orchestra', 'orchestra/worktrees', 'orchestra/logs'] as const;

/** A persona id becomes a directory name: one plain segment (the same rule skills use). */
/** The persona id rule (kernel/ids.ts), under the name the ledger's modules use. */
export const PERSONA_ID = PERSONA_ID_PATTERN;

export const ledgerConfigSchema = z.strictObject({
  project: z.string().trim().min(1).max(200),
  persona_id: z.string().regex(PERSONA_ID, 'must be lowercase letters, digits, "-" and "_"'),
  db_path: z
    .string()
    .min(1)
    .refine((p) => !path.isAbsolute(p), 'must be relative to the persona directory'),
  schema_version: z.number().int().min(1),
});
export type LedgerConfig = z.output<typeof ledgerConfigSchema>;

export function assertPersonaId(personaId: string): void {
  if (!PERSONA_ID.test(personaId)) {
    throw kernelError('RTC_ERR_LEDGER_CONFIG', `persona id "${personaId}" must be lowercase letters, digits, "-" and "_" (it names a directory)`, {
      details: { personaId },
    });
  }
}

/** Reads and checks the config; undefined when the ledger was never bootstrapped. */
export function readLedgerConfig(personaDir: string, configFile: string, personaId: string): LedgerConfig | undefined {
  if (!existsSync(configFile)) return undefined;
  const config = readManifestFile(ledgerConfigSchema, configFile, personaDir);
  if (config.persona_id !== personaId) {
    throw kernelError(
      'RTC_ERR_LEDGER_CONFIG',
      `${CONFIG_PATH} names persona "${config.persona_id}" but lives in the directory of persona "${personaId}"; a ledger is never shared or copied between personas`,
      { details: { file: CONFIG_PATH, found: config.persona_id, expected: personaId } },
    );
  }
  if (config.schema_version > LEDGER_SCHEMA_VERSION) throw newerSchemaError(CONFIG_PATH, config.schema_version, LEDGER_SCHEMA_VERSION);
  return config;
}

export function defaultConfig(personaId: string, project?: string): LedgerConfig {
  return { project: project ?? `${personaId}-local`, persona_id: personaId, db_path: DEFAULT_DB_PATH, schema_version: LEDGER_SCHEMA_VERSION };
}

export const DEFAULT_PROMPT = `# Local task ledger

This is the persona's own task ledger (the container-local Orchestra). It is a scheduler
and task-ledger testbed for this persona only: it never reads or writes the host's
Orchestra database, worktrees or logs.

- Tasks move proposed → ready → implementing → verification → integration → accepted;
  any task in flight may be blocked, and verification or integration may send it to revision.
- Take a resource lease before mutating a shared resource; an expired lease is not yours to
  take until its owner has been reconciled as gone.
- Checkpoint before experiments, compaction, handoff and stopping: changed paths, commands
  and results, open surprises, held leases, and the exact next action.
- Record a surprise when a prediction is falsified; it blocks the tasks it names until resolved.
`;
