// flags: --allow-read=./fixtures --deny-read=./fixtures/secret
// args: (none)
// An explicit --deny-read inside a granted folder wins, with the same NotCapable message.
async function show(path: string) {
  try {
    console.log('allowed', path, JSON.stringify(await Deno.readTextFile(path)));
  } catch (e) {
    const err = e as Error;
    console.log('refused', path, err.name, '|', err.message);
  }
}
await show('fixtures/hello.txt');
await show('fixtures/secret/key.txt');
await show('./fixtures/dir/../secret/key.txt');
try {
  for await (const _ of Deno.readDir('fixtures/secret')) { /* drain */ }
} catch (e) {
  console.log('readDir', (e as Error).name, '|', (e as Error).message);
}
for (const path of ['fixtures', 'fixtures/secret', 'fixtures/secret/key.txt', 'fixtures/dir']) {
  const st = await Deno.permissions.query({ name: 'read', path });
  console.log('query', path, st.state, st.partial);
}
