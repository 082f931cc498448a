/**
 * HistoryStorage as files, for a log that lives in a folder:
 *
 *   <dir>/segments/000001.jsonl.gz       sealed segments, gzip of their exact lines, never rewritten
 *   <dir>/segments/000001.archived.json  an archived segment's stub (its digests and where it went)
 *   <dir>/index.jsonl                    one line per sealed segment (index + rollup), appended
 *   <dir>/checkpoint.json, verified.json documents, replaced whole (temp, fsync, rename, dir fsync)
 *
 * Every write is synced before it returns, and a new directory entry is synced too, so a
 * sealed segment survives power loss as the appended events do.
 */
import { closeSync, constants, existsSync, fstatSync, linkSync, mkdirSync, readdirSync, readSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { replaceFileDurably, syncDirectory, writeAllSyncClose } from '../../kernel/storage/durable-files.ts';
import { openRegular, openRegularFile, readFileCapped, readTextCapped } from '../../kernel/storage/safe-read.ts';
import type { ArchivedStub, HistoryDocument, HistoryStorage, SealedListing, StoredSegment } from '../../kernel/contracts/history-storage.ts';

/**
 * Caps for the history's own files, read through safe-read (a FIFO or a device at their path is
 * refused in one line, never waited on): a sealed segment is at most history.yaml's 1 GiB
 * max_bytes before compression; the index, a stub and a document are small.
 */
const CAPS = { segment: 1100 * 1024 * 1024, index: 256 * 1024 * 1024, small: 16 * 1024 * 1024 } as const;

/** The file names of a segment store: `NNNNNN.jsonl.gz` for a sealed segment, `NNNNNN.archived.json` for its stub. */
const SEGMENT_NAME = /^(\d{6,})\.jsonl\.gz$/;
const STUB_NAME = /^(\d{6,})\.archived\.json$/;

export function segmentFileName(index: number): string {
  return `${String(index).padStart(6, '0')}.jsonl.gz`;
}

export function stubFileName(index: number): string {
  return `${String(index).padStart(6, '0')}.archived.json`;
}

/** The index a segment store file name stands for, and whether it is a stub. */
export function parseSegmentName(name: string): { index: number; stub: boolean } | undefined {
  const segment = SEGMENT_NAME.exec(name);
  if (segment) return { index: Number(segment[1]), stub: false };
  const stub = STUB_NAME.exec(name);
  if (stub) return { index: Number(stub[1]), stub: true };
  return undefined;
}

export interface FileHistoryOptions {
  /** the log's folder (absolute) */
  dir: string;
  /** what messages call the folder (relative to the state directory) */
  label: string;
  readonly?: boolean;
}

function appendLineDurably(file: string, line: string): void {
  const dir = path.dirname(file);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  const created = !existsSync(file);
  const fd = openRegular(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o644)!;
  let bytes: Buffer;
  try {
    // A torn last line (a crash mid-append) is completed by a newline first, so it stays one
    // bad line that the index check names, never glued to the next.
    const size = fstatSync(fd).size;
    const prefix = size > 0 && !endsWithNewline(file, size) ? '\n' : '';
    bytes = Buffer.from(`${prefix}${line}\n`, 'utf8');
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  writeAllSyncClose(fd, bytes);
  if (created) syncDirectory(dir);
}

function endsWithNewline(file: string, size: number): boolean {
  const fd = openRegularFile(file)!;
  try {
    const last = Buffer.alloc(1);
    readSyncAt(fd, last, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

function readSyncAt(fd: number, buffer: Buffer, position: number): void {
  readSync(fd, buffer, 0, buffer.length, position);
}

const SEGMENT_OF_LINE = /^\{"segment":(\d+)[,}]/;

/**
 * The complete lines of `file` whose leading `{"segment":N` is at least `from`, oldest first,
 * read from the end of the file backwards: a recent window costs its own lines, not the file.
 */
export function tailLines(file: string, from: number): string[] {
  const fd = openRegularFile(file);
  if (fd === undefined) return [];
  try {
    const size = fstatSync(fd).size;
    const out: string[] = [];
    let end = size;
    let carry = Buffer.alloc(0);
    let first = true;
    const CHUNK = 1 << 16;
    while (end > 0) {
      const start = Math.max(0, end - CHUNK);
      const chunk = Buffer.alloc(end - start);
      readSync(fd, chunk, 0, chunk.length, start);
      let data = Buffer.concat([chunk, carry]);
      // The text after the last newline of the file is a torn line (never acknowledged).
      if (first) {
        const nl = data.lastIndexOf(0x0a);
        data = nl === -1 ? Buffer.alloc(0) : data.subarray(0, nl + 1);
        first = false;
      }
      let stop = data.length;
      while (stop > 0) {
        const nl = stop >= 2 ? data.lastIndexOf(0x0a, stop - 2) : -1;
        // The line begins in the part of the file before this chunk: read that first.
        if (nl === -1 && start > 0) break;
        const line = data.subarray(nl + 1, stop - 1).toString('utf8');
        stop = nl + 1;
        if (line === '') continue;
        const m = SEGMENT_OF_LINE.exec(line);
        if (m && Number(m[1]) < from) return out.reverse();
        out.push(line);
      }
      carry = Buffer.from(data.subarray(0, stop));
      end = start;
    }
    return out.reverse();
  } finally {
    closeSync(fd);
  }
}

export function fileHistoryStorage(options: FileHistoryOptions): HistoryStorage {
  const segmentsDir = path.join(options.dir, 'segments');
  const indexFile = path.join(options.dir, 'index.jsonl');
  const rollupsFile = path.join(options.dir, 'rollups.jsonl');
  const docFile = (name: HistoryDocument) => path.join(options.dir, `${name}.json`);
  const label = options.label;
  const nameOf = (file: string) => `${label}/${path.relative(options.dir, file).split(path.sep).join('/')}`;
  const refuseWrite = (what: string) => {
    if (options.readonly) throw kernelError('RTC_ERR_PERSISTENCE_READONLY', `${label}: cannot ${what}: opened read-only`);
  };
  return {
    label,
    segmentsLabel: `${label}/segments`,
    segmentLabel: (index) => `${label}/segments/${segmentFileName(index)}`,
    indexLabel: nameOf(indexFile),
    rollupsLabel: nameOf(rollupsFile),
    documentLabel: (name) => nameOf(docFile(name)),
    writable: !options.readonly,
    list(): SealedListing {
      let names: string[];
      try {
        names = readdirSync(segmentsDir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { segments: [], strays: [] };
        throw error;
      }
      const byIndex = new Map<number, StoredSegment>();
      const strays: string[] = [];
      for (const name of names.sort()) {
        const parsed = parseSegmentName(name);
        if (!parsed) {
          strays.push(`${label}/segments/${name}`);
          continue;
        }
        const file = path.join(segmentsDir, name);
        if (parsed.stub) {
          // A segment whose bytes are still here wins over its stub (an archive cut short).
          if (byIndex.has(parsed.index)) continue;
          let stub: ArchivedStub;
          try {
            stub = JSON.parse(readTextCapped(file, { maxBytes: CAPS.small, shown: nameOf(file) }) ?? '') as ArchivedStub;
          } catch {
            throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${nameOf(file)}: an archived segment's stub that is not valid JSON; nothing was changed`, { details: { file: nameOf(file) } });
          }
          byIndex.set(parsed.index, { index: parsed.index, name: nameOf(file), gzBytes: 0, identity: '', archived: stub });
          continue;
        }
        const st = statSync(file, { bigint: true });
        byIndex.set(parsed.index, { index: parsed.index, name: nameOf(file), gzBytes: Number(st.size), identity: `${st.ino}:${st.size}:${st.ctimeNs}` });
      }
      return { segments: [...byIndex.values()].sort((a, b) => a.index - b.index), strays };
    },
    readSealed(index) {
      const file = path.join(segmentsDir, segmentFileName(index));
      // Not a regular file, or over the cap: safe-read's one line naming it.
      const bytes = readFileCapped(file, { maxBytes: CAPS.segment, shown: nameOf(file) });
      if (bytes !== undefined) return bytes;
      const archived = existsSync(path.join(segmentsDir, stubFileName(index)));
      throw kernelError(archived ? 'RTC_ERR_HISTORY_ARCHIVED' : 'RTC_ERR_HISTORY_SEGMENT', `${nameOf(file)}: ${archived ? 'the segment is archived (restore it with "runtimectl archive restore")' : `sealed segment ${index} is missing (ENOENT)`}`, {
        details: { file: nameOf(file), segment: index },
      });
    },
    writeSealed(index, gz) {
      refuseWrite('seal a segment');
      const file = path.join(segmentsDir, segmentFileName(index));
      if (existsSync(file)) {
        // A seal cut short by a crash, redone: the same bytes are fine, anything else is not ours to replace.
        if (readFileCapped(file, { maxBytes: CAPS.segment, shown: nameOf(file) })?.equals(gz)) return;
        throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${nameOf(file)}: a different sealed segment ${index} is already stored; a sealed segment is never replaced (nothing was changed)`, {
          details: { file: nameOf(file), segment: index },
        });
      }
      replaceFileDurably(file, gz);
    },
    readIndex() {
      const text = readTextCapped(indexFile, { maxBytes: CAPS.index, shown: nameOf(indexFile) });
      if (text === undefined) return [];
      const lines = text.split('\n');
      // After the last newline: '' (a complete file) or a line torn by a crash, never acknowledged.
      lines.pop();
      return lines.filter((line) => line !== '');
    },
    appendIndex(line) {
      refuseWrite('append to the segment index');
      appendLineDurably(indexFile, line);
    },
    readRollups: (fromSegment) => tailLines(rollupsFile, fromSegment),
    appendRollup(line) {
      refuseWrite('append a rollup');
      appendLineDurably(rollupsFile, line);
    },
    readDocument(name) {
      return readTextCapped(docFile(name), { maxBytes: CAPS.small, shown: nameOf(docFile(name)) });
    },
    writeDocument(name, text) {
      refuseWrite(`write ${name}.json`);
      replaceFileDurably(docFile(name), text);
    },
    setAside(name, why) {
      refuseWrite(`set ${name}.json aside`);
      const file = docFile(name);
      if (!existsSync(file)) return undefined;
      for (let n = 1; ; n++) {
        const target = `${file}.${why}${n === 1 ? '' : `.${n}`}`;
        if (existsSync(target)) continue;
        // A hard link first: the evidence exists under its new name before the old name goes.
        linkSync(file, target);
        unlinkSync(file);
        syncDirectory(options.dir);
        return nameOf(target);
      }
    },
    archive(index, stub) {
      refuseWrite('archive a segment');
      replaceFileDurably(path.join(segmentsDir, stubFileName(index)), `${JSON.stringify(stub, null, 2)}\n`);
      const file = path.join(segmentsDir, segmentFileName(index));
      if (existsSync(file)) {
        unlinkSync(file);
        syncDirectory(segmentsDir);
      }
    },
    restore(index, gz) {
      refuseWrite('restore a segment');
      const file = path.join(segmentsDir, segmentFileName(index));
      if (!existsSync(file)) replaceFileDurably(file, gz);
      const stub = path.join(segmentsDir, stubFileName(index));
      if (existsSync(stub)) {
        unlinkSync(stub);
        syncDirectory(segmentsDir);
      }
    },
  };
}
