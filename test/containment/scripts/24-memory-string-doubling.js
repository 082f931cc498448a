// @attack: string doubling, each step flattened and kept, so the script holds ~1 GiB of flat
// @attack: strings (big strings are "more of a guideline" for the isolate's heap limit, so it may
// @attack: take the RSS cap to stop it, and the CPU limit may come first).
// @attack: Page faults are slow on this kind of machine (~30 µs per 4 KiB page), so the CPU limit
// @attack: or the wall watchdog may stop it before the memory limit does: any named limit will do.
// @expect: MEMORY CRASHED CPU WALL
const keep = [];
let s = 'x'.repeat(1024);
for (;;) {
  s = s + s;
  s.charCodeAt(s.length >> 1); // flattens the rope
  keep.push(s);
}
