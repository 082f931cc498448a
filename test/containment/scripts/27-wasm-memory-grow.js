// @attack: WebAssembly memory growth (not counted in the isolate heap): a Memory with maximum
// @attack: 65536 pages (4 GiB) grown 128 MiB at a time, every page written so it is committed.
// @attack: The size reached is printed after each step: it must stay far below 4 GiB (the
// @attack: process-pool tier caps the sandbox host's RSS; page faults are slow here, so the CPU
// @attack: limit may stop it first).
// @expect: MEMORY CRASHED CPU WALL error
// @stdout-not-match: at ([2-9]\d{3}|\d{5,}) MiB
const memory = new WebAssembly.Memory({ initial: 1, maximum: 65536 });
for (;;) {
  const before = memory.buffer.byteLength;
  try {
    memory.grow(2048);
  } catch (e) {
    console.log(`grow refused at ${Math.round(before / 2 ** 20)} MiB`);
    throw e;
  }
  const bytes = new Uint8Array(memory.buffer);
  for (let i = before; i < bytes.length; i += 4096) bytes[i] = 1;
  console.log(`at ${Math.round(bytes.length / 2 ** 20)} MiB`);
}
