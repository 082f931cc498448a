// @attack: the memory bomb that aborts a whole Node process (isolated-vm issue #527): a
// @attack: 96-million-element array filled with doubles. Not for the trusted tier. The array is
// @attack: sparse (dictionary mode) at that length, so filling it is slow: on a slow or busy
// @attack: machine the CPU limit can stop it before the heap runs out (52 is the fast variant).
// @attack: Page faults are slow on this kind of machine (~30 µs per 4 KiB page), so the CPU limit
// @attack: or the wall watchdog may stop it before the memory limit does: any named limit will do.
// @expect: MEMORY CRASHED CPU WALL
const a = new Array(96e6);
for (let i = 0; i < a.length; i++) a[i] = i + 0.5;
console.log(a.length);
