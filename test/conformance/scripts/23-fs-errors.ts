// flags: --allow-read=./fixtures
// args: (none)
// OS errors from granted paths: Deno.errors classes, e.name, e.code and Deno's message text.
async function show(label: string, fn: () => Promise<unknown>) {
  try {
    await fn();
    console.log(label, 'no error');
  } catch (e) {
    const err = e as Error & { code?: string };
    console.log(label, err.name, err.code, err instanceof Deno.errors.NotFound, err instanceof Error);
    console.log('  ', err.message);
  }
}
await show('readTextFile', () => Deno.readTextFile('fixtures/nope.txt'));
await show('readFile', () => Deno.readFile('fixtures/nope.bin'));
await show('stat', () => Deno.stat('fixtures/nope'));
await show('lstat', () => Deno.lstat('fixtures/nope'));
await show('readDir', async () => {
  for await (const _ of Deno.readDir('fixtures/nope')) { /* drain */ }
});
await show('read a directory', () => Deno.readTextFile('fixtures/dir'));
await show('through a file', () => Deno.readTextFile('fixtures/hello.txt/x'));
try {
  await Deno.readTextFile('fixtures/nope.txt');
} catch (e) {
  if (e instanceof Deno.errors.NotFound) console.log('caught with instanceof NotFound');
}
