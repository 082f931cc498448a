// flags: (none)
// args: (none)
// A module has no `require` in Deno: calling it with a literal built-in or a file beside the
// script is a ReferenceError when the call runs (nothing is loaded before it).
const tries: [string, () => unknown][] = [
  // deno-lint-ignore no-undef
  ['node:fs', () => require('node:fs')],
  // deno-lint-ignore no-undef
  ['fs', () => require('fs')],
  // deno-lint-ignore no-undef
  ['./lib/meta-lib.ts', () => require('./lib/meta-lib.ts')],
];
for (const [target, f] of tries) {
  try {
    f();
    console.log(target, 'loaded');
  } catch (e) {
    console.log(target, (e as Error).name, (e as Error).message);
  }
}
console.log('after');
