// @attack: string doubling, each step flattened and kept, so the script holds ~1 GiB of flat
// @attack: strings (big strings are "more of a guideline" for the isolate's heap limit, so it may
// @attack: take the RSS cap to stop it, and the CPU limit may come first).
// @expect: MEMORY CRASHED CPU
const keep = [];
let s = 'x'.repeat(1024);
for (;;) {
  s = s + s;
  s.charCodeAt(s.length >> 1); // flattens the rope
  keep.push(s);
}
