// @attack: the fast memory bomb: a packed double array pushed to forever (the backing store
// @attack: doubles and is copied each time), so the heap limit is reached in a few hundred ms.
// @attack: Not for the trusted tier (a fatal OOM can abort the whole process).
// @expect: MEMORY CRASHED
const a = [];
for (let i = 0; ; i++) a.push(i + 0.5);
