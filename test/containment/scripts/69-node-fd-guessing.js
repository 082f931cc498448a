// @attack: node:fs by descriptor number instead of path: read, write, fstat, close and stream
// @attack: every small number (the kernel's own descriptors, the broker's pipes), fd 0-2, a
// @attack: closed fd used again, readFileSync/writeFileSync with a number, createReadStream
// @attack: with { fd }. Numbers the script did not get from fs.open are nothing (EBADF); 0-2 are
// @attack: the run's own stdin (empty), stdout and stderr.
// @expect: contained
// @tier: trusted
// @flags: --allow-read={work} --allow-write={work}
// @setup: file mine.txt mine
import fs from 'node:fs';
let bad = false;
const MARK = ['ESC', 'APED'].join('');
const wrong = (how) => { bad = true; console.log(`WRONG ${how}`); };
const ebadf = (label, f) => {
  try {
    const v = f();
    bad = true;
    console.log(`${MARK} via ${label} -> ${JSON.stringify(v)?.slice(0, 120)}`);
  } catch (e) {
    if (e?.code !== 'EBADF') wrong(`${label}: ${e?.name} ${e?.code}: ${e?.message}`);
  }
};
const mine = fs.openSync('mine.txt', 'r');
for (let fd = 3; fd < 200; fd++) {
  if (fd === mine) continue;
  const buf = Buffer.alloc(64);
  ebadf(`readSync ${fd}`, () => fs.readSync(fd, buf, 0, 64, 0));
  ebadf(`writeSync ${fd}`, () => fs.writeSync(fd, 'x'));
  ebadf(`fstatSync ${fd}`, () => fs.fstatSync(fd).size);
  ebadf(`readFileSync ${fd}`, () => fs.readFileSync(fd));
  ebadf(`writeFileSync ${fd}`, () => fs.writeFileSync(fd, 'x'));
  ebadf(`ftruncateSync ${fd}`, () => fs.ftruncateSync(fd, 0));
  ebadf(`closeSync ${fd}`, () => fs.closeSync(fd));
}
// stdin is empty; stdout and stderr are the run's own output
if (fs.readSync(0, Buffer.alloc(16)) !== 0) wrong('stdin had bytes');
ebadf('readSync 1', () => fs.readSync(1, Buffer.alloc(16)));
ebadf('readSync 2', () => fs.readSync(2, Buffer.alloc(16)));
if (fs.fstatSync(1).isFile()) wrong('fstat of stdout reports a file');
// the script's own descriptor works, and is nothing once closed
const b = Buffer.alloc(4);
if (fs.readSync(mine, b, 0, 4, 0) !== 4 || b.toString() !== 'mine') wrong('own fd read');
fs.closeSync(mine);
ebadf('readSync after close', () => fs.readSync(mine, b, 0, 4, 0));
await new Promise((resolve) => {
  const s = fs.createReadStream(null, { fd: 5 });
  s.on('error', (e) => { if (e?.code !== 'EBADF') wrong(`stream fd 5: ${e?.code}`); resolve(); });
  s.on('data', (d) => { bad = true; console.log(`${MARK} via stream fd 5 -> ${String(d).slice(0, 40)}`); resolve(); });
});
// opening through /proc/self/fd is the kernel's descriptors again: refused
try {
  fs.openSync('/proc/self/fd/3', 'r');
  bad = true;
  console.log(`${MARK} via /proc/self/fd/3`);
} catch (e) {
  if (e?.name !== 'NotCapable' && e?.name !== 'NotSupported') wrong(`/proc/self/fd/3: ${e?.name}`);
}
if (!bad) console.log('CONTAINED');
