// @attack: string doubling, each step flattened and kept, so the script holds ~1 GiB of flat
// @attack: strings (big strings are "more of a guideline" for the isolate's heap limit).
// @expect: MEMORY CRASHED
const keep = [];
let s = 'x'.repeat(1024);
for (;;) {
  s = s + s;
  s.charCodeAt(s.length >> 1); // flattens the rope
  keep.push(s);
}
