// flags: --allow-read=fixtures
// args: (none)
// FsFile.seek converts its arguments as Deno does (offset a number or BigInt, whence an i32,
// one of three modes: a TypeError otherwise, the file still usable); the standard streams are
// Stdin/Stdout/Stderr objects with the soft-removed rids 0, 1, 2 on their prototype.
const file = await Deno.open('fixtures/hello.txt');
const cases: [unknown, unknown][] = [[1, 0], [2.7, 0], [1n, 1], [1, 1.5], [1, 2 ** 33], [1, NaN], [-1, 2], [-100, 2], [1, -1], [1, 3], ['1', 0], [null, 0], [1, '1'], [1, undefined]];
for (const [offset, whence] of cases) {
  try {
    console.log(String(offset), String(whence), file.seekSync(offset as number, whence as number));
  } catch (e) {
    console.log(String(offset), String(whence), (e as Error).name, (e as Error).message);
  }
}
await file.seek(1, -1 as Deno.SeekMode).catch((e: Error) => console.log('async', e.name, e.message));
await file.seek(0, Deno.SeekMode.Start);
const one = new Uint8Array(1);
await file.read(one);
console.log('still readable', new TextDecoder().decode(one));
file.close();
const stdio = Deno as unknown as Record<string, { rid: number }>;
console.log(stdio.stdin.rid, stdio.stdout.rid, stdio.stderr.rid);
console.log(Object.getOwnPropertyNames(Deno.stdin), Object.prototype.toString.call(Deno.stdout));
console.log(Deno.stdout, Deno.stderr, Deno.stdin);
console.log(Object.getOwnPropertyNames(Object.getPrototypeOf(Deno.stdout)).sort().join(' '));
console.log(Object.getOwnPropertyNames(Object.getPrototypeOf(Deno.stdin)).sort().join(' '));
await Deno.stdout.write(new TextEncoder().encode('written through Deno.stdout\n'));
