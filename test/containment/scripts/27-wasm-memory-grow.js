// @attack: WebAssembly memory growth (not counted in the isolate heap): a Memory with maximum
// @attack: 65536 pages (4 GiB) grown 16 MiB at a time, every page written so it is committed.
// @attack: If growing is refused, the size reached is printed: it must stay far below 4 GiB.
// @expect: MEMORY CRASHED error
// @stdout-not-match: grow refused at \d{4,} MiB
const memory = new WebAssembly.Memory({ initial: 1, maximum: 65536 });
for (;;) {
  const before = memory.buffer.byteLength;
  try {
    memory.grow(256);
  } catch (e) {
    console.log(`grow refused at ${Math.round(before / 2 ** 20)} MiB`);
    throw e;
  }
  const bytes = new Uint8Array(memory.buffer);
  for (let i = before; i < bytes.length; i += 4096) bytes[i] = 1;
}
