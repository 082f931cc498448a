/**
 * Where archived segments go: a folder or a tarball, both laid out the same way.
 *
 *   <persona>/manifest.json               what the archive holds: segments with their digests, blobs
 *   <persona>/events/000001.jsonl.gz      event log segments, the stored bytes as they were
 *   <persona>/trace/000001.jsonl.gz       trace segments
 *   <persona>/trace/blobs/<hex>           trace blobs the archived trace segments refer to
 *
 * A folder archive grows: each run adds its members (an existing member must hold the same
 * bytes) and rewrites the manifest. A tarball archive is one `.tar` per run, written to a
 * temporary name, synced and renamed, then read back and checked member by member before any
 * segment leaves the live history.
 */
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import tar from 'tar-stream';
import { kernelError } from '../../kernel/errors.ts';
import { writeFileDurably } from '../../kernel/history/file-storage.ts';

export type ArchiveKind = 'folder' | 'tarball';

export interface ArchivedMember {
  log: 'events' | 'trace';
  segment: number;
  first_seq: number;
  last_seq: number;
  records: number;
  bytes: number;
  sha256: string;
  gz_sha256: string;
  member: string;
}

export interface ArchiveManifest {
  format: 'runtimectl.archive/1';
  persona: string;
  segments: ArchivedMember[];
  blobs: { digest: string; member: string }[];
}

export function memberName(persona: string, log: 'events' | 'trace', segment: number): string {
  return `${persona}/${log}/${String(segment).padStart(6, '0')}.jsonl.gz`;
}

export function blobMember(persona: string, digest: string): string {
  return `${persona}/trace/blobs/${digest.slice('sha256:'.length)}`;
}

/** Writes the members (name → bytes) into a folder archive; an existing member with other bytes is refused before anything is written. */
export function writeFolderArchive(root: string, members: Map<string, Buffer>): void {
  for (const [name, bytes] of members) {
    const file = path.join(root, name);
    if (existsSync(file) && !name.endsWith('manifest.json') && !readFileSync(file).equals(bytes)) {
      throw kernelError('RTC_ERR_HISTORY_ARCHIVE', `${file}: already holds other bytes than the segment being archived; nothing was archived`, { details: { file } });
    }
  }
  for (const [name, bytes] of members) writeFileDurably(path.join(root, name), bytes);
}

/** Writes a tarball of the members durably (temp name, fsync, rename). */
export async function writeTarball(file: string, members: Map<string, Buffer>): Promise<void> {
  if (existsSync(file)) throw kernelError('RTC_ERR_HISTORY_ARCHIVE', `${file}: an archive of that name exists; nothing was archived`, { details: { file } });
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  const done = new Promise<void>((resolve, reject) => {
    pack.on('end', resolve);
    pack.on('error', reject);
  });
  for (const [name, bytes] of members) pack.entry({ name, size: bytes.length, mode: 0o644, mtime: new Date(0) }, bytes);
  pack.finalize();
  await done;
  writeFileDurably(file, Buffer.concat(chunks));
}

/** Every member of a tarball, by name. */
export async function readTarball(file: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const extract = tar.extract();
  const reading = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const parts: Buffer[] = [];
      stream.on('data', (c: unknown) => parts.push(c as Buffer));
      stream.on('end', () => {
        out.set(header.name, Buffer.concat(parts));
        next();
      });
      stream.resume();
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  const input = createReadStream(file);
  input.on('error', (error) => extract.destroy(error));
  input.pipe(extract);
  try {
    await reading;
  } catch (error) {
    throw kernelError('RTC_ERR_HISTORY_ARCHIVE', `${file}: not a readable tarball (${(error as Error).message}); nothing was changed`, { details: { file } });
  }
  return out;
}

/** Reads the members named from a folder or tarball archive; a missing archive or member is an error naming it. */
export async function readArchiveMembers(kind: ArchiveKind, location: string, names: readonly string[]): Promise<Map<string, Buffer>> {
  if (!existsSync(location)) throw kernelError('RTC_ERR_HISTORY_ARCHIVE', `${location}: the archive does not exist; nothing was changed`, { details: { file: location } });
  const out = new Map<string, Buffer>();
  if (kind === 'folder') {
    for (const name of names) {
      const file = path.join(location, name);
      if (!existsSync(file)) throw kernelError('RTC_ERR_HISTORY_ARCHIVE', `${file}: member ${name} of the archive is missing; nothing was changed`, { details: { file, member: name } });
      out.set(name, readFileSync(file));
    }
    return out;
  }
  const all = await readTarball(location);
  for (const name of names) {
    const bytes = all.get(name);
    if (bytes === undefined) throw kernelError('RTC_ERR_HISTORY_ARCHIVE', `${location}: member ${name} is missing from the tarball; nothing was changed`, { details: { file: location, member: name } });
    out.set(name, bytes);
  }
  return out;
}

export function readFolderManifest(root: string, persona: string): ArchiveManifest {
  const file = path.join(root, persona, 'manifest.json');
  if (!existsSync(file)) return { format: 'runtimectl.archive/1', persona, segments: [], blobs: [] };
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ArchiveManifest;
  } catch {
    throw kernelError('RTC_ERR_HISTORY_ARCHIVE', `${file}: the archive's manifest is not valid JSON; nothing was archived`, { details: { file } });
  }
}
