// flags: --allow-write=.
// args: (none)
// cwd: tmp
// Write permission does not imply read permission.
await Deno.writeTextFile('w.txt', 'written');
console.log('write ok');
try {
  await Deno.readTextFile('w.txt');
} catch (e) {
  console.log((e as Error).name, '|', (e as Error).message);
}
try {
  await Deno.stat('w.txt');
} catch (e) {
  console.log((e as Error).name, '|', (e as Error).message);
}
await Deno.mkdir('d');
await Deno.remove('d');
console.log('mkdir and remove ok');
const r = await Deno.permissions.query({ name: 'read', path: '.' });
const w = await Deno.permissions.query({ name: 'write', path: '.' });
console.log('read', r.state, 'write', w.state);
