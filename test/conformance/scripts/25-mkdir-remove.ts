// flags: --allow-read=. --allow-write=.
// args: (none)
// cwd: tmp
// Deno.mkdir (recursive, AlreadyExists) and Deno.remove (file, empty dir, non-empty dir, recursive, NotFound).
async function show(label: string, fn: () => Promise<unknown>) {
  try {
    await fn();
    console.log(label, 'ok');
  } catch (e) {
    const err = e as Error & { code?: string };
    console.log(label, err.name, err.code, '|', err.message);
  }
}
await show('mkdir a', () => Deno.mkdir('a'));
await show('mkdir a again', () => Deno.mkdir('a'));
await show('mkdir a recursive', () => Deno.mkdir('a', { recursive: true }));
await show('mkdir deep without recursive', () => Deno.mkdir('x/y/z'));
await show('mkdir deep recursive', () => Deno.mkdir('x/y/z', { recursive: true }));
console.log('x/y/z is dir', (await Deno.stat('x/y/z')).isDirectory);
await Deno.writeTextFile('a/file.txt', 'content');
await show('mkdir over a file', () => Deno.mkdir('a/file.txt'));
await show('remove non-empty dir', () => Deno.remove('a'));
await show('remove file', () => Deno.remove('a/file.txt'));
await show('remove empty dir', () => Deno.remove('a'));
await show('remove missing', () => Deno.remove('a'));
await show('remove tree', () => Deno.remove('x', { recursive: true }));
await show('stat removed', () => Deno.stat('x'));
try {
  await Deno.remove('gone');
} catch (e) {
  console.log(e instanceof Deno.errors.NotFound);
}
