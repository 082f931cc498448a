// @attack: the fast memory bomb: a packed double array pushed to forever (the backing store
// @attack: doubles and is copied each time), so the heap limit is reached without a sparse array.
// @attack: Not for the trusted tier (a fatal OOM can abort the whole process).
// @attack: Page faults are slow on this kind of machine (~30 µs per 4 KiB page), so the CPU limit
// @attack: or the wall watchdog may stop it before the memory limit does: any named limit will do.
// @expect: MEMORY CRASHED CPU WALL
const a = [];
for (let i = 0; ; i++) a.push(i + 0.5);
