// @attack: with writes granted to its folder and -R, writes into the kernel's own output
// @attack: (/dev/stdout, /dev/stderr, /proc/self/fd/1, /dev/fd/2, through links planted in
// @attack: its folder), into /proc/self files, into /dev/shm through a folder link, and
// @attack: makes and removes entries there: all must be refused, and nothing it writes may
// @attack: appear in the run's own stdout.
// @expect: contained
// @tier: trusted
// @flags: -R --allow-write={work}
// @setup: link out /dev/stdout
// @setup: link err /proc/self/fd/2
// @setup: link shm /dev/shm
// @setup: link procself /proc/self
// @stdout-not-match: INJECTED
const MARK = ['ESC', 'APED'].join('');
let bad = false;
const leak = (how) => { bad = true; console.log(`${MARK} via ${how}`); };
const wrong = (how) => { bad = true; console.log(`WRONG ${how}`); };
async function refused(label, f, classes = ['NotCapable']) {
  try {
    await f();
    leak(label);
  } catch (e) {
    if (!classes.includes(e?.name)) wrong(`${label}: ${e?.name}: ${e?.message}`);
  }
}
const text = ['INJ', 'ECTED\n'].join('');
for (const p of ['/dev/stdout', '/dev/stderr', '/proc/self/fd/1', '/proc/self/fd/2', '/dev/fd/1', '/proc/self/oom_score_adj', '/proc/self/comm', '/dev/shm/rtc-hostile-55', 'out', 'err', 'shm/rtc-hostile-55', 'procself/comm', 'procself/fd/1']) {
  await refused(`writeTextFile ${p}`, () => Deno.writeTextFile(p, text));
  await refused(`append ${p}`, () => Deno.writeTextFile(p, text, { append: true }));
  await refused(`writeFile ${p}`, () => Deno.writeFile(p, new TextEncoder().encode(text)));
  await refused(`createNew ${p}`, () => Deno.writeTextFile(p, text, { createNew: true }), ['NotCapable', 'AlreadyExists']);
}
for (const p of ['/dev/shm/rtc-hostile-55-dir', 'shm/rtc-hostile-55-dir', 'procself/x']) {
  await refused(`mkdir ${p}`, () => Deno.mkdir(p));
  await refused(`mkdir -p ${p}/a/b`, () => Deno.mkdir(`${p}/a/b`, { recursive: true }));
}
for (const p of ['/dev/shm', 'shm/anything', '/proc/self/fd/1']) await refused(`remove ${p}`, () => Deno.remove(p), ['NotCapable']);
if (!bad) console.log('CONTAINED');
