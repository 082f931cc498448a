// flags: --allow-read --allow-env
// args: (none)
// mode: test
// Per-test permissions narrow the run's grant: a kind left out is none, "none" is nothing,
// "inherit" is the run's grant, asking beyond the run is refused, and the grant returns after.
Deno.test({ name: 'read only', permissions: { read: true } }, async () => {
  await Deno.readTextFile('fixtures/hello.txt');
});
Deno.test({ name: 'env left out', permissions: { read: true } }, () => {
  Deno.env.get('HOME');
});
Deno.test({ name: 'none', permissions: 'none' }, async () => {
  await Deno.readTextFile('fixtures/hello.txt');
});
Deno.test({ name: 'inherit', permissions: 'inherit' }, async () => {
  await Deno.readTextFile('fixtures/hello.txt');
  Deno.env.get('HOME');
});
Deno.test({ name: 'escalate', permissions: { net: true } }, () => {});
Deno.test({ name: 'scoped read', permissions: { read: ['fixtures/hello.txt'] } }, async () => {
  await Deno.readTextFile('fixtures/hello.txt');
  await Deno.readTextFile('fixtures/data.json');
});
Deno.test({ name: 'query inside a test', permissions: { read: ['fixtures'] } }, () => {
  console.log(Deno.permissions.querySync({ name: 'read', path: 'fixtures' }).state, Deno.permissions.querySync({ name: 'env' }).state);
});
Deno.test('grant restored after', async () => {
  await Deno.readTextFile('fixtures/data.json');
  Deno.env.get('HOME');
});
