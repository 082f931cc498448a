// flags: (none)
// args: (none)
// mode: test
// t.step in its forms, nested steps, ignored steps, a failing step, and the summary's step counts.
Deno.test('outer', async (t) => {
  await t.step('a', async (t) => {
    await t.step('a1', () => {});
  });
  const ignored = await t.step({ name: 'b', ignore: true, fn() {} });
  console.log('ignored step returned', ignored);
  await t.step(function namedStep() {});
});
Deno.test('failing step', async (t) => {
  await t.step('good', () => {});
  const passed = await t.step('bad', () => {
    throw new Error('step failed');
  });
  console.log('bad step returned', passed);
});
Deno.test('no steps', () => {});
