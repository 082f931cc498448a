// flags: (none)
// args: (none)
// The global scope is Deno's: the same own names (Node's Buffer, process, global, setImmediate
// included, as Deno 2.9 has them in every script; no WebSocketStream, which Deno 2.9 has only
// with --unstable-net) and the same Deno namespace keys.
const names = Object.getOwnPropertyNames(globalThis).sort();
console.log(names.length);
for (const name of names) console.log(name);
const keys = Object.keys(Deno).sort();
console.log(keys.length);
console.log(keys.join(' '));
console.log(Object.prototype.toString.call(globalThis), typeof addEventListener, Object.hasOwn(globalThis, 'addEventListener'), globalThis instanceof EventTarget);
console.log(typeof Buffer, typeof process, global === globalThis, typeof setImmediate, typeof clearImmediate);
// Node's module-scope names are not globals of a plain script in Deno 2.9 (only Buffer, process,
// global, setImmediate and clearImmediate are). (`typeof require` is left out: the bundler's
// `__require` helper answers "function" in the sandbox; see test/deno-unit/RESULTS.md.)
console.log(typeof module, typeof exports, typeof __dirname, typeof __filename, 'require' in globalThis, 'module' in globalThis, 'exports' in globalThis);
