// flags: (none)
// args: (none)
// mode: test
// `only` runs just the marked tests and makes the run fail at the end, as Deno does.
Deno.test('not chosen', () => {});
Deno.test({ name: 'chosen', only: true, fn() {} });
Deno.test.only('chosen too', () => {});
Deno.test('also not chosen', () => {});
