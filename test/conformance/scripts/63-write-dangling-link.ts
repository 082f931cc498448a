// flags: --allow-read=granted --allow-write=granted
// args: (none)
// cwd: tmp
// links: granted/out={cwd}/outside/new.txt granted/in=inside-new.txt granted/deep={cwd}/outside/no/such/dir/x granted/chain=in
// A write through a dangling link creates nothing, inside the grant or outside it: Deno
// answers NotFound (AlreadyExists with createNew), and the link stays dangling.
const tries: [string, () => Promise<unknown>][] = [
  ['write out', () => Deno.writeTextFile('granted/out', 'x')],
  ['write in', () => Deno.writeTextFile('granted/in', 'x')],
  ['write deep', () => Deno.writeTextFile('granted/deep', 'x')],
  ['write chain', () => Deno.writeTextFile('granted/chain', 'x')],
  ['append out', () => Deno.writeTextFile('granted/out', 'x', { append: true })],
  ['writeFile out', () => Deno.writeFile('granted/out', new Uint8Array([1]))],
  ['createNew out', () => Deno.writeTextFile('granted/out', 'x', { createNew: true })],
  ['create:false out', () => Deno.writeTextFile('granted/out', 'x', { create: false })],
  ['mkdir out', () => Deno.mkdir('granted/out')],
  ['stat out', () => Deno.stat('granted/out')],
  ['lstat out', async () => (await Deno.lstat('granted/out')).isSymlink],
  ['read in', () => Deno.readTextFile('granted/in')],
  ['stat inside-new.txt', () => Deno.stat('granted/inside-new.txt')],
];
for (const [name, f] of tries) {
  try {
    console.log(name, 'ok', JSON.stringify(await f()));
  } catch (e) {
    console.log(name, (e as Error).name, '|', (e as Error).message);
  }
}
