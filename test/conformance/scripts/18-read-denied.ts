// flags: (none)
// args: (none)
// No --allow-read: every read throws Deno.errors.NotCapable with Deno's message.
async function attempt(label: string, fn: () => Promise<unknown>) {
  try {
    await fn();
    console.log(label, 'unexpectedly allowed');
  } catch (e) {
    const err = e as Error;
    console.log(label, err instanceof Deno.errors.NotCapable, err.name);
    console.log('  ', err.message);
  }
}
await attempt('readTextFile', () => Deno.readTextFile('fixtures/hello.txt'));
await attempt('readFile', () => Deno.readFile('./fixtures/bytes.bin'));
await attempt('readDir', async () => {
  for await (const _ of Deno.readDir('fixtures')) { /* drain */ }
});
await attempt('stat', () => Deno.stat('fixtures/hello.txt'));
await attempt('lstat', () => Deno.lstat('fixtures/dir/link-to-a.txt'));
await attempt('missing file still NotCapable', () => Deno.readTextFile('fixtures/does-not-exist.txt'));
console.log(Deno.errors.NotCapable.name, new Deno.errors.NotCapable('m') instanceof Error);
