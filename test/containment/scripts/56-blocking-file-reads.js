// @attack: tries to freeze the kernel's main thread with file ops that never return: a FIFO
// @attack: in its granted folder (read, readFile, write, append, through a link), /dev/zero
// @attack: and /dev/urandom (endless), /dev/tty, a 3 GiB sparse file, a FIFO renamed over a
// @attack: regular file's link. Each op must fail at once, and the run end well within its wall limit.
// @expect: contained
// @tier: trusted
// @flags: -R --allow-write={work}
// @setup: fifo pipe
// @setup: link pipelink pipe
// @setup: sparse huge 3221225472
// @setup: link hugelink huge
const MARK = ['ESC', 'APED'].join('');
let bad = false;
const wrong = (how) => { bad = true; console.log(`WRONG ${how}`); };
async function fails(label, f, classes) {
  try {
    const v = await f();
    bad = true;
    console.log(`${MARK} via ${label} -> ${String(v).slice(0, 60)}`);
  } catch (e) {
    if (!classes.includes(e?.name)) wrong(`${label}: ${e?.name}: ${e?.message}`);
  }
}
const NOT_REGULAR = ['NotSupported'];
for (const p of ['pipe', 'pipelink', './pipe', `${Deno.cwd()}/pipe`]) {
  await fails(`readTextFile ${p}`, () => Deno.readTextFile(p), NOT_REGULAR);
  await fails(`readFile ${p}`, () => Deno.readFile(p), NOT_REGULAR);
  await fails(`writeTextFile ${p}`, () => Deno.writeTextFile(p, 'x'), NOT_REGULAR);
  await fails(`append ${p}`, () => Deno.writeTextFile(p, 'x', { append: true }), NOT_REGULAR);
}
for (const p of ['/dev/zero', '/dev/urandom', '/dev/random', '/dev/tty']) {
  await fails(`readTextFile ${p}`, () => Deno.readTextFile(p), [...NOT_REGULAR, 'NotCapable']);
  await fails(`readFile ${p}`, () => Deno.readFile(p), [...NOT_REGULAR, 'NotCapable']);
}
for (const p of ['huge', 'hugelink']) {
  await fails(`readFile ${p}`, async () => (await Deno.readFile(p)).length, ['InvalidData']);
  await fails(`readTextFile ${p}`, async () => (await Deno.readTextFile(p)).length, ['InvalidData']);
}
// a FIFO still answers stat (nothing is opened)
const st = await Deno.stat('pipe');
if (!st.isFifo) wrong('stat of the FIFO should say isFifo');
if (!bad) console.log('CONTAINED');
