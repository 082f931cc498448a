// @attack: node:fs at the kernel's special files with read granted everywhere: /proc/self/environ
// @attack: (the kernel's environment), /proc/self/fd and its links (the kernel's descriptors),
// @attack: /proc/self/mem, /proc/self/exe, /proc/self/cwd, /sys, /dev/stdin; through the sync,
// @attack: promise, fd and stream forms and through a link planted in the work folder.
// @expect: contained
// @tier: trusted
// @flags: --allow-read --allow-write={work}
// @setup: link environ-link /proc/self/environ
// @setup: link fd-link /proc/self/fd
import fs from 'node:fs';
import fsp from 'node:fs/promises';
let bad = false;
const MARK = ['ESC', 'APED'].join('');
const wrong = (how) => { bad = true; console.log(`WRONG ${how}`); };
async function refused(label, f) {
  try {
    const v = await f();
    bad = true;
    console.log(`${MARK} via ${label} -> ${JSON.stringify(v)?.slice(0, 120)}`);
  } catch (e) {
    if (e?.name !== 'NotCapable' && e?.name !== 'NotSupported') wrong(`${label}: ${e?.name}: ${e?.message}`);
  }
}
const special = ['/proc/self/environ', '/proc/self/mem', '/proc/self/maps', '/proc/self/cmdline', '/proc/self/fd/0', '/proc/self/fd/1', '/proc/self/fd/3', '/proc/self/exe', '/proc/1/environ', '/sys/kernel/hostname', '/dev/stdin', 'environ-link', 'fd-link/0'];
for (const p of special) {
  await refused(`readFileSync ${p}`, () => fs.readFileSync(p, 'utf8'));
  await refused(`promises.readFile ${p}`, () => fsp.readFile(p));
  await refused(`openSync ${p}`, () => fs.openSync(p, 'r'));
  await refused(`read stream ${p}`, () => new Promise((resolve, reject) => { const s = fs.createReadStream(p); s.on('error', reject); s.on('data', (d) => resolve(String(d))); }));
  await refused(`copyFileSync ${p}`, () => fs.copyFileSync(p, 'copied'));
}
for (const p of ['/proc/self/fd', '/proc/self', '/proc/self/cwd', 'fd-link']) {
  await refused(`readdirSync ${p}`, () => fs.readdirSync(p));
}
for (const p of ['/proc/self/exe', '/proc/self/cwd', '/proc/self/fd/0', 'fd-link']) {
  await refused(`readlinkSync/realpathSync ${p}`, () => (fs.lstatSync(p).isSymbolicLink() ? fs.realpathSync(p) : fs.readlinkSync(p)));
}
if (!bad) console.log('CONTAINED');
