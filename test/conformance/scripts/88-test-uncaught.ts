// flags: (none)
// args: (none)
// mode: test
// A throw at the top level of a test module fails the module as an uncaught error.
Deno.test('never runs', () => {});
throw new Error('top-level boom');
