// flags: (none)
// args: (none)
// Web streams: ReadableStream (from, async iteration, tee, pipeThrough), WritableStream,
// TransformStream, TextEncoderStream/TextDecoderStream, CompressionStream round trips.
const rs = new ReadableStream<string>({ start(c) { c.enqueue('a'); c.enqueue('b'); c.close(); } });
console.log(rs, rs.locked);
const seen: string[] = [];
for await (const chunk of rs) seen.push(chunk);
console.log(seen, await Array.fromAsync(ReadableStream.from(['x', 'y'])));
const [left, right] = ReadableStream.from([1, 2, 3]).tee();
console.log(await Array.fromAsync(left), await Array.fromAsync(right));
const upper = new TransformStream<string, string>({ transform(chunk, c) { c.enqueue(chunk.toUpperCase()); } });
console.log(await Array.fromAsync(ReadableStream.from(['p', 'q']).pipeThrough(upper)));
const written: number[] = [];
await ReadableStream.from([1, 2]).pipeTo(new WritableStream({ write(chunk) { written.push(chunk * 10); } }));
console.log(written, new WritableStream(), new TransformStream());
const bytes = new TextEncoder().encode('héllo wörld €');
const parts = [bytes.slice(0, 2), bytes.slice(2, 9), bytes.slice(9)];
console.log((await Array.fromAsync(ReadableStream.from(parts).pipeThrough(new TextDecoderStream()))).join(''));
const encoder = new TextEncoderStream();
console.log(encoder.encoding, await Array.fromAsync(ReadableStream.from(['hi']).pipeThrough(encoder)));
const decoder = new TextDecoderStream('utf-8', { fatal: true, ignoreBOM: true });
console.log(decoder.encoding, decoder.fatal, decoder.ignoreBOM);
try {
  await Array.fromAsync(ReadableStream.from([new Uint8Array([0xff])]).pipeThrough(new TextDecoderStream('utf-8', { fatal: true })));
} catch (e) {
  console.log('fatal', (e as Error).name, (e as Error).message);
}
for (const format of ['gzip', 'deflate', 'deflate-raw'] as const) {
  const packed = await new Response(ReadableStream.from([new TextEncoder().encode(`${format} `.repeat(20))]).pipeThrough(new CompressionStream(format))).arrayBuffer();
  const unpacked = await new Response(new Blob([packed]).stream().pipeThrough(new DecompressionStream(format))).text();
  console.log(format, packed.byteLength < 100, unpacked.length);
}
try {
  new CompressionStream('lzma' as CompressionFormat);
} catch (e) {
  console.log((e as Error).name, (e as Error).message);
}
const reader = new ReadableStream({ pull(c) { c.enqueue(1); c.close(); } }).getReader();
console.log(await reader.read(), await reader.read());
const errored = new ReadableStream({ start(c) { c.error(new Error('stream broke')); } });
try {
  await errored.getReader().read();
} catch (e) {
  console.log('errored', (e as Error).message);
}
const locked = ReadableStream.from([1]);
locked.getReader();
try {
  locked.getReader();
} catch (e) {
  console.log('locked', (e as Error).name);
}
const counted = new CountQueuingStrategy({ highWaterMark: 3 });
const byLength = new ByteLengthQueuingStrategy({ highWaterMark: 8 });
console.log(counted.highWaterMark, byLength.highWaterMark, byLength.size(new Uint8Array(5)));
