// flags: --allow-read=. --allow-write=./out
// args: (none)
// cwd: tmp
// Write permission only for ./out: writes, mkdir and remove elsewhere are NotCapable.
await Deno.mkdir('out');
await Deno.writeTextFile('out/ok.txt', 'fine');
console.log('wrote out/ok.txt', await Deno.readTextFile('out/ok.txt'));
async function show(label: string, fn: () => Promise<unknown>) {
  try {
    await fn();
    console.log(label, 'ok');
  } catch (e) {
    const err = e as Error;
    console.log(label, err.name, err instanceof Deno.errors.NotCapable, '|', err.message);
  }
}
await show('writeTextFile outside', () => Deno.writeTextFile('elsewhere.txt', 'x'));
await show('writeFile outside', () => Deno.writeFile('./elsewhere.bin', new Uint8Array([1])));
await show('sibling with same prefix', () => Deno.writeTextFile('out-sibling.txt', 'x'));
await show('escape with ..', () => Deno.writeTextFile('out/../escape.txt', 'x'));
await show('mkdir outside', () => Deno.mkdir('newdir'));
await show('remove outside', () => Deno.remove('out-nothing'));
await show('mkdir inside', () => Deno.mkdir('out/sub/deeper', { recursive: true }));
await show('remove inside', () => Deno.remove('out/sub', { recursive: true }));
const left: string[] = [];
for await (const e of Deno.readDir('.')) left.push(e.name);
console.log(left.sort().join(','));
