// @attack: with -A (so special files are allowed, as under Deno), reads the kernel's stdin
// @attack: (/dev/stdin, /proc/self/fd/0, /dev/fd/0), its tty, /dev/zero, and a FIFO through a
// @attack: /proc/self/fd-free path: none may block the kernel or read without bound; and it
// @attack: writes to the kernel's stdout and stderr, which must not reach the run's output.
// @expect: contained
// @tier: trusted
// @flags: -A
// @setup: fifo pipe
// @stdout-not-match: INJECTED
let bad = false;
const MARK = ['ESC', 'APED'].join('');
const wrong = (how) => { bad = true; console.log(`WRONG ${how}`); };
async function fails(label, f) {
  try {
    const v = await f();
    // /dev/stdin may be /dev/null when the kernel has no input: empty, at once, is harmless
    if (typeof v === 'number' && v === 0) return;
    bad = true;
    console.log(`${MARK} via ${label} -> ${String(v).slice(0, 60)}`);
  } catch (e) {
    if (!['NotSupported', 'NotCapable', 'Error', 'NotFound'].includes(e?.name)) wrong(`${label}: ${e?.name}: ${e?.message}`);
  }
}
for (const p of ['/dev/stdin', '/proc/self/fd/0', '/dev/fd/0', '/dev/tty', '/dev/zero', '/dev/urandom', 'pipe', '/dev/ptmx']) {
  await fails(`readFile ${p}`, async () => (await Deno.readFile(p)).length);
}
const text = ['INJ', 'ECTED\n'].join('');
for (const p of ['/dev/stdout', '/dev/stderr', '/proc/self/fd/1', '/proc/self/fd/2', '/dev/fd/1', 'pipe']) {
  try {
    await Deno.writeTextFile(p, text);
    // the kernel's stdout/stderr as a pipe or tty is not a regular file: refused; as a file: refused as the kernel's own
    bad = true;
    console.log(`${MARK} via write ${p}`);
  } catch (e) {
    if (!['NotSupported', 'NotCapable'].includes(e?.name)) wrong(`write ${p}: ${e?.name}: ${e?.message}`);
  }
}
if (!bad) console.log('CONTAINED');
