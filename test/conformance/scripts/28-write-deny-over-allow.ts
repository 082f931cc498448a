// flags: -A --deny-write=./locked
// args: (none)
// cwd: tmp
// -A with --deny-write: the denied folder stays closed, even though everything else is open.
await Deno.mkdir('open');
await Deno.writeTextFile('open/a.txt', 'a');
console.log('open/a.txt', await Deno.readTextFile('open/a.txt'));
for (const [label, fn] of [
  ['mkdir locked', () => Deno.mkdir('locked')],
  ['write into locked', () => Deno.writeTextFile('locked/x.txt', 'x')],
  ['write via ..', () => Deno.writeTextFile('open/../locked/x.txt', 'x')],
] as const) {
  try {
    await fn();
    console.log(label, 'ok');
  } catch (e) {
    console.log(label, (e as Error).name, '|', (e as Error).message);
  }
}
const st = await Deno.permissions.query({ name: 'write', path: 'locked' });
const all = await Deno.permissions.query({ name: 'write' });
console.log('query locked', st.state, 'query all', all.state, all.partial);
