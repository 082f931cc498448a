/**
 * `Deno.copyFile` and `Deno.copyFileSync`: read on the source and write on the target (Deno's
 * order), both paths through the path guard (fs-guard.ts), both files opened by safe-open
 * (regular files only, non-blocking, the same inode the path named), the target created with
 * O_EXCL|O_NOFOLLOW when new and truncated only once its descriptor is checked; the target
 * gets the source's permission bits, as Deno's copy does.
 *
 * The async op copies with asynchronous reads and writes, so a large file never holds the
 * kernel's thread, and it is a scoped op (kernel/broker/run-scope.ts): the run's end aborts it. The sync
 * op runs on the kernel's thread like every sync op, so it copies at most SYNC_COPY_CAP
 * bytes; a larger file is refused with a message naming the async form.
 *
 * Both charge the run's write quota (fs-charge.ts) for what the target gains before a byte
 * is copied, and for any growth of the source while it is copied before that chunk is
 * written; a copy that fails gives the charge back.
 */
import { closeSync, constants, fchmodSync, ftruncateSync, read, readSync, write, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { DenoOpError } from '../../../kernel/broker/deno-error.ts';
import { guardPath } from './fs-guard.ts';
import { pathAttempts } from '../../../kernel/broker/attempts.ts';
import { defineOp, type BrokerContext, type OpCall } from '../../../kernel/broker/op.ts';
import { isDiscardingDevice } from './special-files.ts';
import { openRegularFile, UnsafeFileError } from '../../fs-safety/safe-open.ts';
import { record, resolvePath, str } from '../../../kernel/broker/args.ts';
import { charged, WriteCharge } from './fs-charge.ts';
import { twoPathError } from './fs-more.ts';

/** The most a copyFileSync copies on the kernel's thread (a few tens of milliseconds from the page cache). */
export const SYNC_COPY_CAP = 64 * 1024 * 1024;
const CHUNK = 1024 * 1024;

const readAsync = promisify(read);
const writeAsync = promisify(write);

interface CopyArgs {
  from: { path: string; given: string };
  to: { path: string; given: string };
}

function parse(raw: unknown, ctx: BrokerContext): CopyArgs {
  const o = record(raw);
  const from = str(o, 'from');
  const to = str(o, 'to');
  return { from: { path: resolvePath(ctx.cwd, from), given: from }, to: { path: resolvePath(ctx.cwd, to), given: to } };
}

const attempts = pathAttempts(['read', 'from'], ['write', 'to']);

const needs = (a: CopyArgs) => [
  { kind: 'read' as const, value: a.from.path, display: a.from.given },
  { kind: 'write' as const, value: a.to.path, display: a.to.given },
];

interface OpenPair {
  source: number;
  target: number;
  size: number;
  mode: number;
  /** the target is a regular file (not /dev/null): truncate and chmod it */
  regular: boolean;
  /** bytes of the copy charged to the write quota so far */
  charged: number;
}

/** Guards both paths, charges what the target gains, and opens both files; the caller closes them (closePair). */
function openPair(a: CopyArgs, ctx: BrokerContext, call: OpCall, charge: WriteCharge): OpenPair {
  const from = guardPath(ctx, call, 'read', a.from.path, 'read-file');
  if (from.stats?.isDirectory()) {
    throw new DenoOpError('TypeError', `the source path is neither a regular file nor a symlink to a regular file: copy '${a.from.given}' -> '${a.to.given}'`, 'EINVAL');
  }
  const source = openRegularFile(from.target, constants.O_RDONLY, { ...(from.stats ? { stats: from.stats } : {}), noFollow: from.resolved });
  try {
    const to = guardPath(ctx, call, 'write', a.to.path, 'write-file');
    const mode = source.stats.mode & 0o7777;
    if (charged(to.stats)) charge.add(source.stats.size - (to.stats?.isFile() ? to.stats.size : 0), to.stats === null ? 1 : 0);
    const target = openRegularFile(to.target, constants.O_WRONLY, { create: to.stats === null, mode, ...(to.stats ? { stats: to.stats } : {}), noFollow: to.resolved, acceptDevice: isDiscardingDevice });
    return { source: source.fd, target: target.fd, size: source.stats.size, mode, regular: target.stats.isFile(), charged: source.stats.size };
  } catch (error) {
    closeSync(source.fd);
    throw error;
  }
}

function prepareTarget(pair: OpenPair): void {
  if (!pair.regular) return;
  ftruncateSync(pair.target, 0);
  fchmodSync(pair.target, pair.mode);
}

function closePair(pair: OpenPair): void {
  closeSync(pair.source);
  closeSync(pair.target);
}

/** A source that grew while it was copied: the bytes past what was charged are charged before they are written. */
function chargeGrowth(pair: OpenPair, charge: WriteCharge, copied: number): void {
  if (pair.regular && copied > pair.charged) {
    charge.add(copied - pair.charged, 0);
    pair.charged = copied;
  }
}

function copyError(error: unknown, a: CopyArgs, ctx: BrokerContext): DenoOpError {
  if (error instanceof UnsafeFileError && error.reason === 'not-regular') {
    return new DenoOpError('NotSupported', `not a regular file (a ${error.kind}); the sandbox copies only regular files: copy '${a.from.given}' -> '${a.to.given}'`);
  }
  return twoPathError(error, 'copy', a.from.given, a.to.given, { bareNotDir: !ctx.gate.allowsAll() });
}

export const copyFileSync = defineOp({
  name: 'fs.copyFileSync',
  mode: 'sync',
  parse,
  needs,
  attempts,
  quota: true,
  run(a, ctx, call) {
    const charge = new WriteCharge(ctx, 'copy', a.to.path, a.to.given);
    try {
      const pair = openPair(a, ctx, call, charge);
      try {
        if (pair.size > SYNC_COPY_CAP) {
          throw new DenoOpError('NotSupported', `RTC_ERR_UNSUPPORTED: Deno.copyFileSync copies at most ${SYNC_COPY_CAP} bytes in the sandbox (it runs on the kernel's thread); '${a.from.given}' has ${pair.size}: use Deno.copyFile; see docs/sandbox.md, "What the sandbox supports"`);
        }
        prepareTarget(pair);
        const buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, pair.size)));
        // Up to the cap: a file that grows while it is copied stops there.
        for (let total = 0; total <= SYNC_COPY_CAP; ) {
          const n = readSync(pair.source, buffer, 0, buffer.length, null);
          if (n === 0) break;
          chargeGrowth(pair, charge, total + n);
          for (let offset = 0; offset < n; ) offset += writeSync(pair.target, buffer, offset, n - offset);
          total += n;
        }
      } finally {
        closePair(pair);
      }
      return null;
    } catch (error) {
      charge.refund();
      throw copyError(error, a, ctx);
    }
  },
});

export const copyFile = defineOp({
  name: 'fs.copyFile',
  mode: 'async',
  parse,
  needs,
  attempts,
  scoped: true,
  quota: true,
  async run(a, ctx, call) {
    const signal = call.ticket!.signal;
    const charge = new WriteCharge(ctx, 'copy', a.to.path, a.to.given);
    try {
      const pair = openPair(a, ctx, call, charge);
      try {
        prepareTarget(pair);
        const buffer = Buffer.allocUnsafe(CHUNK);
        for (let total = 0; ; ) {
          if (signal.aborted) throw signal.reason;
          const { bytesRead } = await readAsync(pair.source, buffer, 0, CHUNK, null);
          if (bytesRead === 0) break;
          total += bytesRead;
          chargeGrowth(pair, charge, total);
          for (let offset = 0; offset < bytesRead; ) offset += (await writeAsync(pair.target, buffer, offset, bytesRead - offset)).bytesWritten;
        }
      } finally {
        closePair(pair);
      }
      return null;
    } catch (error) {
      charge.refund();
      throw copyError(error, a, ctx);
    }
  },
});
