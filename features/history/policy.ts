/**
 * `<state>/<persona>/history.yaml` (policy-schema.ts): segment rotation and retention. It
 * lives beside the data, like persistence.yaml, so the loop, `verify` and `archive` read the
 * same policy without the profile. No file: 4 MiB segments rotated daily, everything kept.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { shownPath } from '../../kernel/shown-path.ts';
import { kernelError } from '../../kernel/errors.ts';
import { readManifestFile } from '../../kernel/manifest/load.ts';
import { guardPath } from '../persistence/state/persona-storage.ts';
import { HISTORY_CONFIG_FILE, HISTORY_SCHEMA_VERSION, historyConfigSchema, type HistoryConfig } from './policy-schema.ts';

export { HISTORY_CONFIG_FILE, HISTORY_SCHEMA_VERSION, historyConfigSchema, DEFAULT_SEGMENT_MAX_BYTES, type HistoryConfig, type RetentionPolicy } from './policy-schema.ts';

export function defaultHistoryConfig(): HistoryConfig {
  return historyConfigSchema.parse({ schema_version: HISTORY_SCHEMA_VERSION });
}

export function readHistoryConfig(personaDir: string): HistoryConfig & { source: 'file' | 'default' } {
  const file = guardPath(personaDir, HISTORY_CONFIG_FILE);
  if (!existsSync(file)) return { ...defaultHistoryConfig(), source: 'default' };
  let config: HistoryConfig;
  try {
    // Named as the user finds it from where they stand (relative to the cwd, else absolute).
    config = readManifestFile(historyConfigSchema, file) as HistoryConfig;
  } catch (error) {
    throw kernelError('RTC_ERR_HISTORY_CONFIG', error instanceof Error ? error.message : String(error), { details: { file: HISTORY_CONFIG_FILE }, cause: error });
  }
  if (config.schema_version > HISTORY_SCHEMA_VERSION) {
    throw kernelError('RTC_ERR_HISTORY_CONFIG', `${shownPath(file)}: schema version ${config.schema_version} is newer than the ${HISTORY_SCHEMA_VERSION} this runtimectl supports (the file was left untouched)`, {
      details: { file: HISTORY_CONFIG_FILE },
    });
  }
  if (config.retention.mode === 'archive' && !path.isAbsolute(config.retention.to)) {
    throw kernelError('RTC_ERR_HISTORY_CONFIG', `${shownPath(file)}: retention.to: must be an absolute path (got ${JSON.stringify(config.retention.to)})`, { details: { file: HISTORY_CONFIG_FILE } });
  }
  return { ...config, source: 'file' };
}

/** Whether the open segment is due to be sealed now: big enough, or its first record is from an earlier UTC day. */
export function sealDue(config: HistoryConfig, open: { records: number; bytes: number; firstAt?: string; header?: unknown }, nowMs: number): boolean {
  const headerOnly = open.header !== undefined ? 1 : 0;
  if (open.records <= headerOnly) return false;
  if (open.bytes >= config.segments.max_bytes) return true;
  if (config.segments.rotate !== 'daily' || open.firstAt === undefined) return false;
  return open.firstAt.slice(0, 10) < new Date(nowMs).toISOString().slice(0, 10);
}
