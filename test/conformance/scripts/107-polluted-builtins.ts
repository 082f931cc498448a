// flags: --allow-read=fixtures --allow-run=true
// args: (none)
// A script may replace Promise.prototype.then and Array.prototype[Symbol.iterator] (Deno's own
// unit tests do): what the runtime does for the script while they are replaced (start a file
// read, a timer, a command, a microtask, settle the module body at its first await) does not
// go through them.
// (Deno loads its process and timers modules on first use, and those loads iterate arrays: touched first)
const { Command } = Deno;
void [setTimeout, queueMicrotask];
const originalThen = Promise.prototype.then;
const originalIterator = Array.prototype[Symbol.iterator];
Promise.prototype.then = function () {
  throw new Error('polluted then');
};
Array.prototype[Symbol.iterator] = function () {
  throw new Error('polluted iterator');
};
const text = Deno.readTextFile('fixtures/hello.txt');
const output = new Command('true').output();
const timer = new Promise<string>((resolve) => setTimeout(() => resolve('timer fired'), 5));
let microtask = 'microtask pending';
queueMicrotask(() => {
  microtask = 'microtask ran';
});
await null;
Promise.prototype.then = originalThen;
Array.prototype[Symbol.iterator] = originalIterator;
console.log(microtask);
console.log(JSON.stringify(await text));
console.log('command success', (await output).success);
console.log(await timer);
