// flags: --allow-read=./fixtures
// args: (none)
// mode: test
// deno test: every call form, ignore, output blocks, failures with their locations, the summary.
import { meta } from './lib/meta-lib.ts';
console.log('module body: main is', import.meta.main, '/ imported module: main is', meta.main);
Deno.test('plain name and function', () => {});
Deno.test('prints inside', () => {
  console.log('printed from a test');
});
Deno.test('throws', () => {
  throw new Error('boom');
});
Deno.test({ name: 'options object', fn() {} });
Deno.test(function namedFunction() {});
Deno.test('name, options, fn', { ignore: false }, () => {});
Deno.test({ name: 'ignored', ignore: true, fn() {} });
Deno.test.ignore('ignored helper', () => {});
Deno.test({ name: 'with named fn' }, function inner() {});
Deno.test({ fn: function fromFnName() {} });
Deno.test('async rejects', async () => {
  await Promise.resolve();
  throw new TypeError('bad value');
});
Deno.test('reads a granted file', async () => {
  const text = await Deno.readTextFile('fixtures/hello.txt');
  if (!text.startsWith('hello')) throw new Error('unexpected content');
});
Deno.test('denied read fails', async () => {
  await Deno.readTextFile('scripts/01-console-streams.ts');
});
Deno.test('context', (t) => {
  console.log(t.name, t.origin.endsWith('84-test-runner.ts'), typeof t.step);
});
for (const bad of [() => Deno.test(''), () => (Deno.test as unknown as (s: string) => void)('x'), () => Deno.test(() => {}), () => Deno.test({ name: 'n' } as Deno.TestDefinition), () => Deno.test('n', { name: 'x' } as unknown as Deno.TestDefinition, () => {})]) {
  try {
    bad();
  } catch (e) {
    console.log('registration', (e as Error).name, (e as Error).message);
  }
}
