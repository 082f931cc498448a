// flags: --allow-read=. --allow-write=.
// args: (none)
// cwd: tmp
// Deno.open / Deno.create and FsFile: read, write, seek, stat, truncate, sync, close, streams.
const show = async (label: string, fn: () => unknown) => {
  try {
    const value = await fn();
    console.log(label, 'ok', value === undefined ? '' : JSON.stringify(value));
  } catch (e) {
    const err = e as Error & { code?: string };
    console.log(label, err.name, err.code ?? '-', err.message);
  }
};
const enc = new TextEncoder();
const dec = new TextDecoder();
const f = await Deno.create('f.txt');
await show('write', () => f.write(enc.encode('hello world')));
await show('writeSync', () => f.writeSync(enc.encode('!')));
await show('seek start', () => f.seek(0, Deno.SeekMode.Start));
const buf = new Uint8Array(5);
await show('read', async () => [await f.read(buf), dec.decode(buf)]);
await show('readSync', () => [f.readSync(buf), dec.decode(buf)]);
await show('seek current', () => f.seekSync(-3, Deno.SeekMode.Current));
await show('seek end', () => f.seek(-1, Deno.SeekMode.End));
await show('read tail', async () => { const b = new Uint8Array(10); const n = await f.read(b); return [n, dec.decode(b.subarray(0, n ?? 0))]; });
await show('read eof', () => f.read(new Uint8Array(4)));
await show('read empty buffer', () => f.read(new Uint8Array(0)));
await show('seek negative', () => f.seek(-100, Deno.SeekMode.Start));
await show('stat', async () => { const s = await f.stat(); return [s.isFile, s.size]; });
await show('truncate', async () => { await f.truncate(5); return (f.statSync()).size; });
await show('sync', () => f.sync());
await show('syncData', () => f.syncDataSync());
await show('isTerminal', () => f.isTerminal());
f.close();
await show('read after close', () => f.read(buf));
await show('close twice', () => f.close());
await show('content', () => Deno.readTextFile('f.txt'));
await show('open missing', () => Deno.open('missing.txt'));
await show('createNew exists', () => Deno.open('f.txt', { write: true, createNew: true }));
await show('create without write', () => Deno.open('g.txt', { create: true }));
await show('no mode', () => Deno.open('f.txt', { read: false }));
await show('append', async () => {
  const a = await Deno.open('f.txt', { append: true });
  await a.write(enc.encode('+tail'));
  a.close();
  return Deno.readTextFile('f.txt');
});
await show('truncate option', async () => {
  const t = await Deno.open('f.txt', { write: true, truncate: true });
  t.close();
  return (await Deno.stat('f.txt')).size;
});
await show('readable stream', async () => {
  await Deno.writeTextFile('s.txt', 'streamed text\n'.repeat(3));
  const file = await Deno.open('s.txt');
  return new Response(file.readable).text();
});
await show('writable stream', async () => {
  const file = await Deno.open('w.txt', { write: true, create: true });
  await ReadableStream.from([enc.encode('one '), enc.encode('two')]).pipeTo(file.writable);
  return Deno.readTextFile('w.txt');
});
await show('openSync createNew', () => { const s = Deno.openSync('n.txt', { write: true, createNew: true }); s.writeSync(enc.encode('x')); s.close(); return Deno.readTextFileSync('n.txt'); });
await show('using', async () => {
  {
    using u = await Deno.open('n.txt');
    const b = new Uint8Array(1);
    await u.read(b);
  }
  return 'closed';
});
await show('FsFile constructor', () => new (Deno.FsFile as unknown as new (rid: number) => unknown)(3));
await show('SeekMode', () => [Deno.SeekMode.Start, Deno.SeekMode.Current, Deno.SeekMode.End, Deno.SeekMode[2]]);
