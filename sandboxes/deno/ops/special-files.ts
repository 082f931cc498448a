/**
 * Special files: the kernel's, not the script's. In the process tier the broker does every
 * file op, so `/proc/self` is the kernel (its environment holds API keys), `/dev/stdout` is
 * the kernel's own output (the `--json` channel). Deno requires `--allow-all` for anything
 * under /proc, /sys and /dev except a few harmless devices, and decides on the resolved
 * path; this module says what is special, by path and by inode, so a symlink in a granted
 * folder that leads there is the same file:
 *  - by path (Deno's rule, on the normalized path, which the broker applies to every need:
 *    kernel/broker/special-paths.ts): /proc, /sys, /dev and beneath, except /dev/null,
 *    /dev/zero, /dev/random, /dev/urandom and /dev/tty (Deno 2.9.6's list, measured). Deno also lets /dev/fd/N and /proc/self/fd/N through when N > 2 is a pipe of
 *    its own process; here that process is the kernel, so those stay special;
 *  - by inode (what a path really reaches): a file on any filesystem mounted at or under
 *    /proc, /sys or /dev (their device numbers, read once from /proc/self/mountinfo), and
 *    any character or block device node, except the harmless devices above.
 * The kernel's own standard streams are refused whatever the grant (see `isKernelStdio`).
 */
import { fstatSync, readFileSync, statSync, type Stats } from 'node:fs';
import { isUnder as under, SPECIAL_ROOTS as ROOTS } from '../../../kernel/broker/special-paths.ts';

/** glibc's makedev, as Node reports `dev`/`rdev` on Linux. */
function makedev(major: number, minor: number): number {
  return (major & 0xfff) * 256 + (minor & 0xff) + (minor & ~0xff) * 4096 + (major & ~0xfff) * 2 ** 32;
}

// null 1:3, zero 1:5, random 1:8, urandom 1:9, tty 5:0
const HARMLESS_DEVICES = new Set([makedev(1, 3), makedev(1, 5), makedev(1, 8), makedev(1, 9), makedev(5, 0)]);
/** The devices a write may reach: they discard what they are given. */
const DISCARDING_DEVICES = new Set([makedev(1, 3), makedev(1, 5)]);

let specialDevs: Set<number> | undefined;

/** Device numbers of every filesystem mounted at or under /proc, /sys, /dev. */
function specialDevices(): Set<number> {
  if (specialDevs) return specialDevs;
  const found = new Set<number>();
  try {
    for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
      const fields = line.split(' ');
      const dev = fields[2];
      const mountPoint = fields[4]?.replace(/\\(\d{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
      if (!dev || !mountPoint || !ROOTS.some((root) => under(mountPoint, root))) continue;
      const [major, minor] = dev.split(':').map(Number);
      if (Number.isInteger(major) && Number.isInteger(minor)) found.add(makedev(major!, minor!));
    }
  } catch {
    // No mountinfo (not Linux, or /proc hidden): fall back to the roots' own devices,
    // unless a root is only a folder of the root filesystem.
    const root = statSync('/', { throwIfNoEntry: false })?.dev;
    for (const r of ROOTS) {
      const dev = statSync(r, { throwIfNoEntry: false })?.dev;
      if (dev !== undefined && dev !== root) found.add(dev);
    }
  }
  specialDevs = found;
  return found;
}

export function isHarmlessDevice(s: Stats): boolean {
  return (s.isCharacterDevice() && HARMLESS_DEVICES.has(s.rdev));
}

/** /dev/null: reads as empty at once, the one device a read accepts. */
export function isNullDevice(s: Stats): boolean {
  return s.isCharacterDevice() && s.rdev === makedev(1, 3);
}

/** A device a write can go to without effect (/dev/null, /dev/zero). */
export function isDiscardingDevice(s: Stats): boolean {
  return s.isCharacterDevice() && DISCARDING_DEVICES.has(s.rdev);
}

/** What a path really reached is special: it lives on /proc, /sys or /dev, or is a device node. */
export function isSpecialInode(s: Stats): boolean {
  if (isHarmlessDevice(s)) return false;
  if (s.isCharacterDevice() || s.isBlockDevice()) return true;
  return specialDevices().has(s.dev);
}

let stdio: { dev: number; ino: number }[] | undefined;

/**
 * The kernel's stdin, stdout and stderr, as inodes. They are never the script's: a write
 * there would land in `sandbox run --json` output ahead of the result and past the output
 * cap, whatever the grant (Deno's `-A` included: under Deno they are the script's own).
 */
export function isKernelStdio(s: Stats): boolean {
  // Only regular files matter: a pipe or a tty is refused as not a regular file anyway,
  // and /dev/null as stdin must stay writable.
  stdio ??= [0, 1, 2].flatMap((fd) => {
    try {
      const st = fstatSync(fd);
      return st.isFile() ? [{ dev: st.dev, ino: st.ino }] : [];
    } catch {
      return [];
    }
  });
  return s.isFile() && stdio.some((k) => k.dev === s.dev && k.ino === s.ino);
}
