/**
 * `storage.files`: durable file operations inside the persona's own folder, for a backend
 * that keeps state as files (jsonl-fs). Every path is resolved inside the session's persona
 * folder (lexically and through realpath); writes are refused on a read-only session and on
 * the kernel's own files (storage-session.ts: the event log, the trace, persistence.yaml,
 * the writer lock). Writes are durable before the op answers.
 *
 *   stat, read (a byte range, optionally cut at the last whole line), list
 *   append (synced), replace / replaceAsync (temp file, fsync, rename, directory fsync),
 *   create (O_EXCL: for lock files), remove, truncate
 *
 * The event log is not written through these: see event-bindings.ts.
 */
import { openRegularFile } from '../../../kernel/storage/safe-read.ts';
import { kernelError } from '../../../kernel/errors.ts';
import { closeSync, constants, existsSync, fstatSync, ftruncateSync, fsyncSync, mkdirSync, openSync, readdirSync, readSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { DenoOpError, fromNodeError } from '../../../kernel/broker/deno-error.ts';
import { syncDirectory, writeAllSyncClose } from '../../../kernel/storage/durable-files.ts';
import { appendFileDurably, replaceFileDurably, replaceFileDurablyAsync, type ReplaceOptions } from '../../../kernel/storage/durable-files.ts';
import { withExclusiveLock } from '../state/exclusive-lock.ts';
import { dataArg, optInt, pathArg, storageOp } from './binding-kit.ts';

/** Longest read one call answers (the plugin reads a longer file in ranges). */
export const MAX_READ_BYTES = 16 * 1024 * 1024;

function statOf(file: string): { exists: boolean; size: number } {
  try {
    const s = statSync(file);
    return s.isFile() ? { exists: true, size: s.size } : { exists: false, size: 0 };
  } catch {
    return { exists: false, size: 0 };
  }
}

function directorySync(o: Record<string, unknown>): ReplaceOptions {
  const value = o.directory_sync;
  if (value === undefined || value === null || value === 'always') return {};
  if (value === 'when-new') return { directorySync: 'when-new' };
  throw new DenoOpError('TypeError', '"directory_sync" must be "always" or "when-new"');
}

export const filesStat = storageOp({
  name: 'storage.files.stat',
  binding: 'storage.files',
  mode: 'sync',
  parse: (o) => ({ path: pathArg(o) }),
  run: (session, a) => statOf(session.resolve(a.path)),
});

export const filesRead = storageOp({
  name: 'storage.files.read',
  binding: 'storage.files',
  mode: 'sync',
  parse: (o) => ({ path: pathArg(o), offset: optInt(o, 'offset') ?? 0, length: optInt(o, 'length', 1), wholeLines: o.whole_lines === true, maxBytes: optInt(o, 'max_bytes', 1) }),
  run(session, a) {
    const file = session.resolve(a.path);
    // Non-blocking, regular files only (kernel/storage/safe-read.ts): a FIFO, a device or a
    // folder planted here is refused (RTC_ERR_FS_ACCESS), never read and never taken for "missing".
    const fd = openRegularFile(file, a.path);
    if (fd === undefined) return { text: null, size: 0, end: 0 };
    try {
      const size = fstatSync(fd).size;
      // A whole-file cap the reader names (brain.json, long-term.md): a runaway file is refused, not read in ranges.
      if (a.maxBytes !== undefined && size > a.maxBytes) {
        throw kernelError('RTC_ERR_FS_ACCESS', `${a.path}: ${size} bytes is over the ${a.maxBytes}-byte cap; it was not read`, { details: { file: a.path } });
      }
      const start = Math.min(a.offset, size);
      const want = Math.min(a.length ?? size - start, size - start);
      if (want > MAX_READ_BYTES) throw new DenoOpError('RangeError', `${a.path}: a read of ${want} bytes is over the ${MAX_READ_BYTES} a call may answer; read it in ranges`);
      const buffer = Buffer.allocUnsafe(want);
      let got = 0;
      while (got < want) {
        const n = readSync(fd, buffer, got, want - got, start + got);
        if (n === 0) break;
        got += n;
      }
      let bytes = buffer.subarray(0, got);
      if (a.wholeLines) {
        const nl = bytes.lastIndexOf(0x0a);
        bytes = bytes.subarray(0, nl + 1);
      }
      return { text: bytes.toString('utf8'), size, end: start + bytes.length };
    } finally {
      closeSync(fd);
    }
  },
});

export const filesList = storageOp({
  name: 'storage.files.list',
  binding: 'storage.files',
  mode: 'sync',
  parse: (o) => ({ dir: pathArg(o, 'dir') }),
  run(session, a) {
    const dir = session.resolve(a.dir);
    if (!existsSync(dir)) return { names: [] as string[] };
    return { names: readdirSync(dir, { withFileTypes: true }).filter((d) => d.isFile()).map((d) => d.name).sort() };
  },
});

export const filesAppend = storageOp({
  name: 'storage.files.append',
  binding: 'storage.files',
  mode: 'sync',
  parse: (o) => ({ path: pathArg(o), data: dataArg(o) }),
  run(session, a) {
    const file = session.resolveForWrite(a.path, 'append');
    try {
      appendFileDurably(file, a.data);
    } catch (error) {
      throw fromNodeError(error, 'append', a.path);
    }
    return { size: statOf(file).size };
  },
});

export const filesReplace = storageOp({
  name: 'storage.files.replace',
  binding: 'storage.files',
  mode: 'sync',
  parse: (o) => ({ path: pathArg(o), data: dataArg(o), options: directorySync(o) }),
  run(session, a) {
    const file = session.resolveForWrite(a.path, 'replace');
    try {
      replaceFileDurably(file, a.data, a.options);
    } catch (error) {
      throw fromNodeError(error, 'replace', a.path);
    }
    return null;
  },
});

export const filesReplaceAsync = storageOp({
  name: 'storage.files.replaceAsync',
  binding: 'storage.files',
  mode: 'async',
  parse: (o) => ({ path: pathArg(o), data: dataArg(o), options: directorySync(o) }),
  async run(session, a) {
    const file = session.resolveForWrite(a.path, 'replace');
    try {
      await replaceFileDurablyAsync(file, a.data, a.options);
    } catch (error) {
      throw fromNodeError(error, 'replace', a.path);
    }
    return null;
  },
});

export const filesCreate = storageOp({
  name: 'storage.files.create',
  binding: 'storage.files',
  mode: 'sync',
  parse: (o) => ({ path: pathArg(o), data: dataArg(o) }),
  run(session, a) {
    const file = session.resolveForWrite(a.path, 'create');
    let fd: number;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { created: false };
      throw fromNodeError(error, 'create', a.path);
    }
    writeAllSyncClose(fd, Buffer.from(a.data, 'utf8'));
    syncDirectory(path.dirname(file));
    return { created: true };
  },
});

export const filesRemove = storageOp({
  name: 'storage.files.remove',
  binding: 'storage.files',
  mode: 'sync',
  parse: (o) => ({ path: pathArg(o) }),
  run(session, a) {
    const file = session.resolveForWrite(a.path, 'remove');
    try {
      unlinkSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { removed: false };
      throw fromNodeError(error, 'remove', a.path);
    }
    return { removed: true };
  },
});

export const filesTruncate = storageOp({
  name: 'storage.files.truncate',
  binding: 'storage.files',
  mode: 'sync',
  parse: (o) => {
    const size = optInt(o, 'size');
    if (size === undefined) throw new DenoOpError('TypeError', '"size" is required');
    return { path: pathArg(o), size };
  },
  run(session, a) {
    const file = session.resolveForWrite(a.path, 'truncate');
    const fd = openSync(file, constants.O_WRONLY | constants.O_NOFOLLOW);
    try {
      if (a.size > statOf(file).size) throw new DenoOpError('RangeError', `${a.path}: truncate only shortens a file`);
      ftruncateSync(fd, a.size);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return null;
  },
});

/**
 * An append that happens only while the file is still `expect_size` bytes long, under the
 * file's write lock (`<path>.lock`, shared with every other writer of the file, in this
 * process or another): how an append-only record file (the jsonl-fs ledger) commits a change
 * decided on what it last read. `cut_to` first shortens the file (a torn last line, never
 * acknowledged) under the same lock. Answers whether it appended and the size after.
 */
export const filesAppendIfSize = storageOp({
  name: 'storage.files.appendIfSize',
  binding: 'storage.files',
  mode: 'sync',
  parse(o) {
    const expect = optInt(o, 'expect_size');
    if (expect === undefined) throw new DenoOpError('TypeError', '"expect_size" is required');
    return { path: pathArg(o), data: dataArg(o), expect, cutTo: optInt(o, 'cut_to') };
  },
  run(session, a) {
    const file = session.resolveForWrite(a.path, 'append');
    return withExclusiveLock(`${file}.lock`, { shown: a.path, what: 'the write lock', code: 'RTC_ERR_LEDGER_LOCKED', waitMs: 10_000 }, () => {
      const size = statOf(file).size;
      if (size !== a.expect) return { appended: false, size };
      if (a.cutTo !== undefined && a.cutTo < size) {
        const fd = openSync(file, constants.O_WRONLY | constants.O_NOFOLLOW);
        try {
          ftruncateSync(fd, a.cutTo);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
      }
      if (a.data !== '') appendFileDurably(file, a.data);
      return { appended: true, size: statOf(file).size };
    });
  },
});

export const FILE_BINDING_OPS = [filesAppendIfSize, filesStat, filesRead, filesList, filesAppend, filesReplace, filesReplaceAsync, filesCreate, filesRemove, filesTruncate];
