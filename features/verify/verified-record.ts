/**
 * `<persona>/logs/verified.json`: what the last successful `runtimectl verify` of a persona
 * saw (per check: each sealed segment's stored identity and digest, where its chain ended),
 * so the next incremental run reads only what is new or changed. It is a cache, not state:
 * a missing or unreadable one means "check everything", and writing it is best effort (a
 * read-only state directory is verified all the same). It is a file whatever the persona's
 * persistence backend, so verify never writes into a backend it opened read-only.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { replaceFileDurably } from '../../kernel/storage/durable-files.ts';

export const VERIFIED_FILE = path.join('logs', 'verified.json');

export function readVerifiedRecord(personaDir: string): Record<string, unknown> | undefined {
  try {
    const raw = JSON.parse(readFileSync(path.join(personaDir, VERIFIED_FILE), 'utf8')) as unknown;
    return raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function writeVerifiedRecord(personaDir: string, record: Record<string, unknown>): boolean {
  try {
    replaceFileDurably(path.join(personaDir, VERIFIED_FILE), `${JSON.stringify(record)}\n`);
    return true;
  } catch {
    return false;
  }
}
