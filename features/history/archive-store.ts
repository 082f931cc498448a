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
import { closeSync, createReadStream, existsSync, lstatSync, openSync, readFileSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';
import tar from 'tar-stream';
import { kernelError } from '../../kernel/errors.ts';
import { replaceFileDurably } from '../../kernel/storage/durable-files.ts';
import { readRegularFile } from '../../sandboxes/fs-safety/safe-open.ts';

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
  for (const [name, bytes] of members) replaceFileDurably(path.join(root, name), bytes);
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
  replaceFileDurably(file, Buffer.concat(chunks));
}

/**
 * A member to read back, with its bound: exactly `exactBytes` when the chain knows its size (a
 * segment's gz_bytes), else at most `maxBytes`. `optional` members may be absent.
 */
export interface MemberWant {
  name: string;
  maxBytes: number;
  exactBytes?: number;
  optional?: boolean;
}

function refuse(message: string, details: Record<string, unknown>): never {
  throw kernelError('RTC_ERR_HISTORY_ARCHIVE', message, { details });
}

/** A member name runtimectl writes: relative, '/'-separated, no empty, '.' or '..' part, no backslash or NUL. */
export function isSafeMemberName(name: string): boolean {
  if (name === '' || name.length > 1024 || name.startsWith('/') || /[\\\0]/.test(name)) return false;
  return name.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

function checkSize(location: string, want: MemberWant, size: number): void {
  if (want.exactBytes !== undefined && size !== want.exactBytes) {
    refuse(`${location}: member ${want.name} holds ${size} bytes, not the ${want.exactBytes} the live history keeps for it; nothing was changed`, { file: location, member: want.name });
  }
  if (size > want.maxBytes) refuse(`${location}: member ${want.name} holds ${size} bytes, over the ${want.maxBytes}-byte bound; nothing was changed`, { file: location, member: want.name });
}

/**
 * The wanted members of a tarball, streamed: a member is read only when wanted (the others are
 * skipped, never held), and only up to its bound. The archive is refused, in one line naming the
 * member, when any member has an unsafe name (absolute, '..'), is a link, symlink, device or
 * FIFO, or appears twice, or when a wanted member is larger than its bound or missing. A
 * compressed tarball is refused: runtimectl writes plain ones.
 */
async function readTarballMembers(file: string, wants: readonly MemberWant[]): Promise<Map<string, Buffer>> {
  const byName = new Map(wants.map((w) => [w.name, w]));
  const out = new Map<string, Buffer>();
  const seen = new Set<string>();
  const head = Buffer.alloc(2);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, 2, 0);
  } finally {
    closeSync(fd);
  }
  if (head[0] === 0x1f && head[1] === 0x8b) refuse(`${file}: a gzip-compressed tarball; runtimectl archives are plain .tar files (nothing was changed)`, { file });
  const extract = tar.extract();
  const input = createReadStream(file);
  // The first failure settles the read and stops the streams (whatever they emit afterwards is not heard).
  let settle!: (error?: Error) => void;
  const reading = new Promise<void>((resolve, reject) => {
    let settled = false;
    settle = (error) => {
      if (settled) return;
      settled = true;
      if (error === undefined) return resolve();
      reject(error);
      input.unpipe(extract);
      input.destroy();
      extract.destroy();
    };
  });
  const quiet = () => undefined;
  extract.on('error', (error: Error) => settle(error));
  extract.on('finish', () => settle());
  input.on('error', (error) => settle(error));
  extract.on('entry', (header, stream, next) => {
    stream.on('error', quiet);
    const fail = (message: string) => settle(kernelError('RTC_ERR_HISTORY_ARCHIVE', message, { details: { file, member: header.name } }));
    const skip = () => {
      // Not a member the live history names: drained unread, never held.
      stream.on('end', next);
      stream.resume();
    };
    const name = header.name;
    if (!isSafeMemberName(header.type === 'directory' ? name.replace(/\/$/, '') : name)) return fail(`${file}: member ${JSON.stringify(name)} has an unsafe name (absolute, empty or with '..'); runtimectl archives name members <persona>/...; nothing was changed`);
    if (header.type === 'directory') return skip();
    if (header.type !== 'file') return fail(`${file}: member ${name} is a ${header.type ?? 'entry of an unknown type'}, not a regular file; runtimectl archives hold only regular files; nothing was changed`);
    if (seen.has(name)) return fail(`${file}: member ${name} appears twice; nothing was changed`);
    seen.add(name);
    const want = byName.get(name);
    if (want === undefined) return skip();
    try {
      checkSize(file, want, header.size ?? 0);
    } catch (error) {
      return settle(error as Error);
    }
    const parts: Buffer[] = [];
    let total = 0;
    stream.on('data', (chunk: unknown) => {
      const c = chunk as Buffer;
      total += c.length;
      if (total > want.maxBytes) return fail(`${file}: member ${name} grew past its ${want.maxBytes}-byte bound while it was read; nothing was changed`);
      parts.push(c);
    });
    stream.on('end', () => {
      out.set(name, Buffer.concat(parts, total));
      next();
    });
  });
  input.pipe(extract);
  try {
    await reading;
  } catch (error) {
    if ((error as { code?: string }).code === 'RTC_ERR_HISTORY_ARCHIVE') throw error;
    refuse(`${file}: not a readable tarball (${(error as Error).message}); nothing was changed`, { file });
  }
  for (const want of wants) {
    if (!out.has(want.name) && !want.optional) refuse(`${file}: member ${want.name} is missing from the tarball; nothing was changed`, { file, member: want.name });
  }
  return out;
}

/** One wanted member of a folder archive: a regular file (not a link) inside the folder, within its bound. */
function readFolderMember(root: string, realRoot: string, want: MemberWant): Buffer | undefined {
  const file = path.join(root, want.name);
  const st = lstatSync(file, { throwIfNoEntry: false });
  if (st === undefined) {
    if (want.optional) return undefined;
    refuse(`${file}: member ${want.name} of the archive is missing; nothing was changed`, { file, member: want.name });
  }
  if (!st.isFile()) refuse(`${file}: member ${want.name} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}; runtimectl archives hold only regular files; nothing was changed`, { file, member: want.name });
  const realDir = realpathSync(path.dirname(file));
  const rel = path.relative(realRoot, realDir);
  if (rel.startsWith('..') || path.isAbsolute(rel)) refuse(`${file}: member ${want.name} leads outside the archive folder (through a symbolic link); nothing was changed`, { file, member: want.name });
  checkSize(root, want, st.size);
  try {
    const bytes = readRegularFile(file, want.maxBytes, { noFollow: true, stats: st });
    checkSize(root, want, bytes.length);
    return bytes;
  } catch (error) {
    if ((error as { code?: string }).code === 'RTC_ERR_HISTORY_ARCHIVE') throw error;
    refuse(`${file}: member ${want.name} cannot be read (${(error as Error).message}); nothing was changed`, { file, member: want.name });
  }
}

/**
 * Reads the wanted members (and only those) from a folder or tarball archive, each within its
 * bound; a missing archive or member, an unsafe or oversized one, is one line naming it.
 */
export async function readArchiveMembers(kind: ArchiveKind, location: string, wants: readonly MemberWant[]): Promise<Map<string, Buffer>> {
  if (!existsSync(location)) refuse(`${location}: the archive does not exist; nothing was changed`, { file: location });
  for (const want of wants) {
    if (!isSafeMemberName(want.name)) refuse(`${location}: member ${JSON.stringify(want.name)} has an unsafe name (absolute, empty or with '..'); nothing was changed`, { file: location, member: want.name });
  }
  if (kind === 'tarball') return readTarballMembers(location, wants);
  const realRoot = realpathSync(location);
  const out = new Map<string, Buffer>();
  for (const want of wants) {
    const bytes = readFolderMember(location, realRoot, want);
    if (bytes !== undefined) out.set(want.name, bytes);
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
