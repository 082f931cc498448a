// flags: --allow-read=./fixtures/granted
// args: {cwd}
// Path matching: the granted folder and everything below it; not a sibling sharing its prefix,
// not its parent; relative spellings and ".." are normalised before the check.
async function show(path: string) {
  try {
    const text = await Deno.readTextFile(path);
    console.log('allowed', path, JSON.stringify(text));
  } catch (e) {
    const err = e as Error;
    console.log('refused', path, err.name, '|', err.message);
  }
}
await show('fixtures/granted/g.txt');
await show('./fixtures/granted/inner/i.txt');
await show('fixtures/granted/../granted/g.txt');
await show('fixtures/granted/./inner/../g.txt');
await show('fixtures/granted-sibling/s.txt');
await show('fixtures/granted/../granted-sibling/s.txt');
await show('fixtures/hello.txt');
await show('fixtures/granted/missing.txt');
const [cwd] = Deno.args; // the absolute run directory, passed in (Deno.cwd() is tested on its own)
await show(`${cwd}/fixtures/granted/g.txt`);
await show(`${cwd}/fixtures/secret/key.txt`);
