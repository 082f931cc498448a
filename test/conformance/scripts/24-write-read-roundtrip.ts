// flags: --allow-read=. --allow-write=.
// args: (none)
// cwd: tmp
// writeTextFile / writeFile and reading back; append, create:false, createNew.
await Deno.writeTextFile('note.txt', 'first line\n');
console.log(JSON.stringify(await Deno.readTextFile('note.txt')));
await Deno.writeTextFile('note.txt', 'second line\n', { append: true });
console.log(JSON.stringify(await Deno.readTextFile('./note.txt')));
await Deno.writeTextFile('note.txt', 'replaced');
console.log(JSON.stringify(await Deno.readTextFile('note.txt')));
await Deno.writeFile('data.bin', new Uint8Array([0, 1, 2, 253, 254, 255]));
const back = await Deno.readFile('data.bin');
console.log(back.length, Array.from(back).join(','));
await Deno.writeTextFile('utf8.txt', 'héllo €😀');
console.log((await Deno.readFile('utf8.txt')).length, await Deno.readTextFile('utf8.txt'));
console.log((await Deno.stat('utf8.txt')).size);
try {
  await Deno.writeTextFile('absent.txt', 'x', { create: false });
} catch (e) {
  console.log('create:false', (e as Error).name, '|', (e as Error).message);
}
try {
  await Deno.writeTextFile('note.txt', 'x', { createNew: true });
} catch (e) {
  console.log('createNew', (e as Error).name, '|', (e as Error).message);
}
try {
  await Deno.writeTextFile('no-such-dir/x.txt', 'x');
} catch (e) {
  console.log('missing parent', (e as Error).name, '|', (e as Error).message);
}
const names: string[] = [];
for await (const e of Deno.readDir('.')) names.push(e.name);
console.log(names.sort().join(','));
