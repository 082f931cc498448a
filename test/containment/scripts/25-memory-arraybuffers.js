// @attack: many big ArrayBuffers (external memory, outside the JS heap), each written to so the
// @attack: pages are really committed; allocation failures are swallowed and retried. Bounded
// @attack: at 2 GiB in total (30 times the 64 MB limit) so a failed cap cannot take the machine down.
// @attack: Page faults are slow on this kind of machine (~30 µs per 4 KiB page), so the CPU limit
// @attack: or the wall watchdog may stop it before the memory limit does: any named limit will do.
// @expect: MEMORY CRASHED CPU WALL
const keep = [];
for (let i = 0; i < 64; i++) {
  try {
    const b = new Uint8Array(new ArrayBuffer(32 * 1024 * 1024));
    for (let j = 0; j < b.length; j += 4096) b[j] = 1;
    keep.push(b);
  } catch {
    keep.push(new Array(1e6).fill(i));
  }
}
console.log('survived with', keep.length, 'buffers');
