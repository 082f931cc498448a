/**
 * The schema of `<state>/<persona>/history.yaml` (policy.ts): when the persona's logs seal a
 * segment, and what happens to sealed segments later. In a module of its own so the schema
 * registry can load it without the readers.
 *
 *   schema_version: 1
 *   segments:
 *     max_bytes: 4194304     # seal when the open segment reaches this size (uncompressed)
 *     rotate: daily          # daily: also seal when the UTC day of its first record is over; size: only by size
 *   retention:
 *     mode: keep             # the default: every sealed segment stays in the live history
 *     # mode: archive        # sealed segments older than after_days move to an archive,
 *     # after_days: 90       # only their digests (and the chain's headers) stay live
 *     # to: /srv/archive/jerome    # a folder (absolute), or a .tar file to append tarballs beside
 *     # format: folder       # folder | tarball (one .tar per archive run, in `to`)
 */
import { z } from 'zod';

export const HISTORY_CONFIG_FILE = 'history.yaml';
export const HISTORY_SCHEMA_VERSION = 1;
export const DEFAULT_SEGMENT_MAX_BYTES = 4 * 1024 * 1024;

export const historyConfigSchema = z
  .strictObject({
    $schema: z.string().optional(),
    schema_version: z.number().int().min(1).describe('1'),
    segments: z
      .strictObject({
        max_bytes: z.number().int().min(4096).max(1024 * 1024 * 1024).default(DEFAULT_SEGMENT_MAX_BYTES).describe('seal the open segment when it reaches this many bytes (uncompressed)'),
        rotate: z.enum(['daily', 'size']).default('daily').describe('daily: also seal when the UTC day of its first record is over; size: by size only'),
      })
      .default({ max_bytes: DEFAULT_SEGMENT_MAX_BYTES, rotate: 'daily' }),
    retention: z
      .discriminatedUnion('mode', [
        z.strictObject({ mode: z.literal('keep').describe('keep every sealed segment live (the default)') }),
        z.strictObject({
          mode: z.literal('archive'),
          after_days: z.number().int().min(0).max(36500).describe('archive sealed segments whose last record is older than this many days'),
          to: z.string().min(1).describe('absolute path of the archive folder (format folder) or of the folder tarballs go to (format tarball)'),
          format: z.enum(['folder', 'tarball']).default('folder'),
        }),
      ])
      .default({ mode: 'keep' }),
  })
  .describe("A persona's history policy: segment rotation and retention of sealed segments");

export type HistoryConfig = z.output<typeof historyConfigSchema>;
export type RetentionPolicy = HistoryConfig['retention'];
