/**
 * Copies a draft folder into the evidence package (`<out>/source/<folder>/`) with a
 * sha256 per file, so the evidence names exactly the bytes that were evaluated and every
 * later check reads the copy, never the original (which may change while we look).
 *
 * What is not copied, and why, is a problem of the snapshot check: a symlink leaving the
 * folder (or dangling), a file over the size cap, a special file (FIFO, socket, device),
 * files past the count or total-size cap. A symlink that stays inside is recreated as a
 * relative link to the copy. Files are opened without following a final symlink and
 * without blocking (a FIFO swapped in after the lstat cannot stall the gate), and read
 * only up to the cap.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readlinkSync, readSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { digestOf, treeDigest } from './evidence/digest.ts';
import { isInside } from '../skills/read-reference.ts';
import type { DraftLimits } from './profile-schema.ts';

export interface SnapshotEntry {
  /** POSIX path relative to the draft folder */
  path: string;
  type: 'file' | 'symlink';
  bytes: number;
  /** `sha256:<hex>` of the file's bytes, or of a symlink's target text as written in the copy */
  sha256: string;
  /** a symlink's target, relative, as written in the copy */
  target?: string;
}

export type SnapshotProblemKind = 'symlink-out' | 'symlink-dangling' | 'too-large' | 'special-file' | 'too-many-files' | 'total-too-large' | 'unreadable' | 'bad-name';

export interface SnapshotProblem {
  path: string;
  problem: SnapshotProblemKind;
  detail: string;
}

export interface Snapshot {
  /** absolute path of the copy */
  root: string;
  entries: SnapshotEntry[];
  problems: SnapshotProblem[];
  /** the draft's identity: treeDigest of the entries (evidence/digest.ts) */
  digest: string;
}

/**
 * Why a file name cannot be carried into the evidence as it is, or null. A name must be
 * UTF-8 that decodes and re-encodes to the same bytes (two names of different invalid bytes
 * would both become U+FFFD, one file copied over the other), and hold no control character,
 * line or paragraph separator (which forge lines in anything that prints or lists names) and
 * no backslash (a path separator on other systems; package paths never hold one).
 */
export function badNameReason(raw: Buffer): string | null {
  const name = raw.toString('utf8');
  if (!Buffer.from(name, 'utf8').equals(raw)) return 'the name is not valid UTF-8';
  const bad = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\\]/u.exec(name);
  if (bad) return `the name holds ${bad[0] === '\\' ? 'a backslash' : `the control character U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`}`;
  return null;
}

/** A name as it can be shown in a problem line: JSON-quoted when it is not printable as is. */
function shownName(raw: Buffer): string {
  return JSON.stringify(raw.toString('utf8')).slice(1, -1);
}

/** Reads at most `max + 1` bytes, so a file that grew past the cap after its lstat is still caught. */
function readCapped(file: string, max: number): Buffer | 'too-large' | 'special' {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) return 'special';
    const chunks: Buffer[] = [];
    let total = 0;
    const chunk = Buffer.alloc(Math.min(max + 1, 1 << 16));
    for (;;) {
      const n = readSync(fd, chunk, 0, Math.min(chunk.length, max + 1 - total), null);
      if (n === 0) break;
      chunks.push(Buffer.from(chunk.subarray(0, n)));
      total += n;
      if (total > max) return 'too-large';
    }
    return Buffer.concat(chunks);
  } finally {
    closeSync(fd);
  }
}

export function snapshotDraft(sourceDir: string, destDir: string, limits: DraftLimits): Snapshot {
  const realSource = realpathSync(sourceDir);
  const entries: SnapshotEntry[] = [];
  const problems: SnapshotProblem[] = [];
  let totalBytes = 0;
  let seen = 0;
  mkdirSync(destDir, { recursive: true });

  const walk = (rel: string): void => {
    const raw = readdirSync(path.join(realSource, rel), { encoding: 'buffer' }).sort(Buffer.compare);
    for (const rawName of raw) {
      const name = rawName.toString('utf8');
      const relPath = rel === '' ? name : `${rel}/${name}`;
      const nameProblem = badNameReason(rawName);
      if (nameProblem !== null) {
        // Not copied, and nothing under it: the name itself cannot be recorded unambiguously.
        const shown = rel === '' ? shownName(rawName) : `${rel}/${shownName(rawName)}`;
        problems.push({ path: shown, problem: 'bad-name', detail: `${nameProblem}; not copied` });
        continue;
      }
      const from = path.join(realSource, relPath);
      const to = path.join(destDir, relPath);
      const info = lstatSync(from);
      if (info.isDirectory()) {
        mkdirSync(to, { recursive: true });
        walk(relPath);
        continue;
      }
      seen += 1;
      if (seen > limits.max_files) {
        if (seen === limits.max_files + 1) problems.push({ path: relPath, problem: 'too-many-files', detail: `the draft holds more than ${limits.max_files} files; the rest were not copied` });
        continue;
      }
      if (info.isSymbolicLink()) {
        const written = readlinkSync(from);
        let real: string;
        try {
          real = realpathSync(from);
        } catch {
          problems.push({ path: relPath, problem: 'symlink-dangling', detail: `symlink to "${written}" resolves to nothing` });
          continue;
        }
        if (!isInside(realSource, real)) {
          problems.push({ path: relPath, problem: 'symlink-out', detail: `symlink to "${written}" leaves the draft folder (resolves to ${real})` });
          continue;
        }
        const target = path.relative(path.dirname(to), path.join(destDir, path.relative(realSource, real))) || '.';
        symlinkSync(target, to);
        entries.push({ path: relPath, type: 'symlink', bytes: 0, sha256: digestOf(target), target });
        continue;
      }
      if (!info.isFile()) {
        problems.push({ path: relPath, problem: 'special-file', detail: 'not a regular file, folder or symlink (FIFO, socket or device)' });
        continue;
      }
      if (info.size > limits.max_file_bytes) {
        problems.push({ path: relPath, problem: 'too-large', detail: `${info.size} bytes, over the profile's cap of ${limits.max_file_bytes}` });
        continue;
      }
      let bytes: Buffer | 'too-large' | 'special';
      try {
        bytes = readCapped(from, limits.max_file_bytes);
      } catch (error) {
        problems.push({ path: relPath, problem: 'unreadable', detail: (error as NodeJS.ErrnoException).code ?? String(error) });
        continue;
      }
      if (bytes === 'special') {
        problems.push({ path: relPath, problem: 'special-file', detail: 'changed into a non-regular file while being copied' });
        continue;
      }
      if (bytes === 'too-large') {
        problems.push({ path: relPath, problem: 'too-large', detail: `grew over the profile's cap of ${limits.max_file_bytes} bytes while being copied` });
        continue;
      }
      if (totalBytes + bytes.length > limits.max_total_bytes) {
        problems.push({ path: relPath, problem: 'total-too-large', detail: `copying it would pass the profile's cap of ${limits.max_total_bytes} bytes for the whole draft` });
        continue;
      }
      totalBytes += bytes.length;
      // Copies carry no execute bit: nothing in a draft is run as a host program.
      writeFileSync(to, bytes, { mode: 0o644 });
      entries.push({ path: relPath, type: 'file', bytes: bytes.length, sha256: digestOf(bytes) });
    }
  };
  walk('');
  return { root: destDir, entries, problems, digest: treeDigest(entries) };
}
