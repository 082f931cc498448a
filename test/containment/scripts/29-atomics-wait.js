// @attack: Atomics.wait on a SharedArrayBuffer that nobody will ever notify: the thread blocks
// @attack: without using CPU.
// @expect: CPU WALL error
// @tier: trusted
const cell = new Int32Array(new SharedArrayBuffer(4));
Atomics.wait(cell, 0, 0);
console.log('woke up');
