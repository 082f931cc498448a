// @attack: with -R (all reads granted) reads the kernel's own /proc/self (environ holds its
// @attack: API keys; cmdline, fd, maps, mem), /sys and /dev, spelled every way (//, ./, ..,
// @attack: relative from cwd, trailing slash, thread-self), and through links planted in its
// @attack: own folder: to /proc/self/environ, to the /proc/self folder, to /proc, to /dev/fd.
// @attack: Each must be refused for every op (read, readDir, stat, lstat through a folder
// @attack: link, realPath), decided on the path the op really reaches.
// @expect: contained
// @tier: trusted
// @flags: -R
// @setup: link environ /proc/self/environ
// @setup: link procself /proc/self
// @setup: link proc /proc
// @setup: link fds /dev/fd
// @setup: link chain environ
// @setup: link sysfs /sys/kernel
const MARK = ['ESC', 'APED'].join('');
let bad = false;
const leak = (how) => { bad = true; console.log(`${MARK} via ${how}`); };
const wrong = (how) => { bad = true; console.log(`WRONG ${how}`); };
async function refused(label, f) {
  try {
    const v = await f();
    leak(`${label} -> ${JSON.stringify(v)?.slice(0, 120)}`);
  } catch (e) {
    if (e?.name !== 'NotCapable') wrong(`${label}: ${e?.name}: ${e?.message}`);
  }
}
const first = async (it) => { for await (const e of it) return e.name; return null; };
const depth = Deno.cwd().split('/').filter(Boolean).length;
const up = '../'.repeat(depth);
const spellings = ['/proc/self/environ', '//proc/self/environ', '/proc/./self/environ', '/proc/self/../self/environ', '/dev/../proc/self/environ', `${up}proc/self/environ`, '/proc/thread-self/environ', '/proc/self/environ/', '/proc/self/cmdline', '/proc/self/maps', '/proc/self/fd/0', '/proc/self/fd/1', '/dev/fd/2', '/dev/stdin', '/sys/kernel/hostname', '/proc/1/environ', 'environ', 'chain', 'procself/environ', 'procself/cmdline', 'proc/self/environ', 'fds/3', 'sysfs/hostname'];
for (const p of spellings) {
  await refused(`readTextFile ${p}`, () => Deno.readTextFile(p));
  await refused(`readFile ${p}`, async () => (await Deno.readFile(p)).length);
  await refused(`stat ${p}`, async () => (await Deno.stat(p)).size);
  await refused(`realPath ${p}`, () => Deno.realPath(p));
}
for (const p of ['/proc', '/proc/self', '/proc/self/fd', '/sys', '/dev', 'procself', 'procself/fd', 'proc', 'fds', 'sysfs']) {
  await refused(`readDir ${p}`, () => first(Deno.readDir(p)));
  await refused(`stat ${p}`, async () => (await Deno.stat(p)).ino);
}
for (const p of ['/proc/self/environ', '/proc/self/exe', 'procself/environ', 'procself/exe', 'proc/self', 'fds/0']) {
  await refused(`lstat ${p}`, async () => (await Deno.lstat(p)).ino);
}
// the links themselves live in the granted folder: their own metadata is not special
const own = await Deno.lstat('environ');
if (!own.isSymlink) wrong('lstat of the planted link itself should work and say isSymlink');
if (!bad) console.log('CONTAINED');
