// flags: (none)
// args: (none)
// The global scope is Deno's: the same own names (Node's Buffer, process, global, setImmediate
// included, as Deno 2.9 has them in every script) and the same Deno namespace keys.
const names = Object.getOwnPropertyNames(globalThis).sort();
console.log(names.length);
for (const name of names) console.log(name);
const keys = Object.keys(Deno).sort();
console.log(keys.length);
console.log(keys.join(' '));
console.log(Object.prototype.toString.call(globalThis), typeof addEventListener, Object.hasOwn(globalThis, 'addEventListener'), globalThis instanceof EventTarget);
console.log(typeof Buffer, typeof process, global === globalThis, typeof setImmediate, typeof clearImmediate);
