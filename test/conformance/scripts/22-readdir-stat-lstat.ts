// flags: --allow-read=./fixtures
// args: (none)
// Deno.readDir entries, Deno.stat (follows symlinks) and Deno.lstat (does not).
const entries: string[] = [];
for await (const e of Deno.readDir('fixtures/dir')) {
  entries.push(`${e.name} file=${e.isFile} dir=${e.isDirectory} symlink=${e.isSymlink}`);
}
for (const line of entries.sort()) console.log(line);
const top: string[] = [];
for await (const e of Deno.readDir('./fixtures')) top.push(e.name);
console.log(top.sort().join(','));
const f = await Deno.stat('fixtures/hello.txt');
console.log('stat file', f.isFile, f.isDirectory, f.isSymlink, f.size, f.mtime instanceof Date, typeof f.mode);
const d = await Deno.stat('fixtures/dir');
console.log('stat dir', d.isFile, d.isDirectory, d.isSymlink);
const viaLink = await Deno.stat('fixtures/dir/link-to-a.txt');
console.log('stat link', viaLink.isFile, viaLink.isSymlink, viaLink.size);
const link = await Deno.lstat('fixtures/dir/link-to-a.txt');
console.log('lstat link', link.isFile, link.isSymlink);
const plain = await Deno.lstat('fixtures/dir/b.txt');
console.log('lstat file', plain.isFile, plain.isSymlink, plain.size);
console.log(JSON.stringify(await Deno.readTextFile('fixtures/dir/link-to-a.txt')));
