// flags: (none)
// args: (none)
// node:util: inspect (Node's quoting and depth), format, promisify/callbackify, types, deep equality, parseArgs.
import util, { format, inspect, promisify, types } from 'node:util';
console.log(inspect({ a: 'x', b: [1, 'y', { c: { d: { e: 1 } } }], m: new Map([['k', { v: 1 }]]), s: new Set(['q']) }));
console.log(inspect("it's"), inspect('say "hi"'), inspect(`both ' and "`), inspect([1, 2], { showHidden: true }));
console.log(inspect({ deep: { a: { b: { c: 1 } } } }, { depth: 0 }), inspect({ deep: { a: { b: { c: 1 } } } }, { depth: null }));
console.log(inspect(new Error('boom')).split('\n')[0], inspect(Symbol('s')), inspect(123n), inspect(-0), inspect(null), inspect(undefined));
console.log(inspect({ [Symbol('k')]: 1, 'key-with-dash': 2 }), inspect(Object.create(null)), inspect(class Foo {}), inspect(function bar() {}));
class Custom {
  [inspect.custom]() {
    return 'custom!';
  }
}
console.log(inspect(new Custom()), [new Custom()], inspect(new Date(0)), inspect(/re/g));
console.log(format('%s is %d years and %i%% sure, %j', 'Ann', 42.5, 99.9, { ok: true }), format('%o', [1]), format('%O', { a: 1 }));
console.log(format('no args %s'), format('extra', 1, 'two', { three: 3 }), format('%s', { toString() { return 'custom'; } }), format(1, 2));
const sleep = promisify((ms: number, cb: (err: Error | null, v: string) => void) => setTimeout(() => cb(null, `slept ${ms}`), ms));
console.log(await sleep(1));
const failing = promisify((cb: (err: Error | null) => void) => cb(new Error('nope')));
console.log(await failing().catch((e: Error) => e.message));
// (Deno 2.9.6 never calls a callbackified function's callback, so only its shape is compared)
console.log(typeof util.callbackify(async (x: number) => x * 2));
console.log(types.isPromise(Promise.resolve()), types.isDate(new Date()), types.isRegExp(/x/), types.isUint8Array(Buffer.from('')), types.isMap(new Map()), types.isAsyncFunction(async () => {}), types.isNativeError(new TypeError()));
console.log(util.isDeepStrictEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), util.isDeepStrictEqual({ a: 1 }, { a: '1' }), util.isDeepStrictEqual(new Set([1, 2]), new Set([2, 1])), util.isDeepStrictEqual([1], { 0: 1, length: 1 }));
class Base {}
function Derived() {}
util.inherits(Derived, Base);
console.log(Object.getPrototypeOf(Derived.prototype) === Base.prototype, (Derived as unknown as { super_: unknown }).super_ === Base);
const { values, positionals } = util.parseArgs({ args: ['-v', '--name=x', 'pos', '--n', '5'], options: { v: { type: 'boolean' }, name: { type: 'string' }, n: { type: 'string' } }, allowPositionals: true });
console.log(JSON.stringify(values), positionals);
try {
  util.parseArgs({ args: ['--unknown'], options: {} });
} catch (e) {
  console.log((e as { code?: string }).code, (e as Error).message);
}
console.log(util.stripVTControlCharacters('\u001b[31mred\u001b[0m'), util.getSystemErrorName(-2), util.types.isBoxedPrimitive(Object(1)));
console.log(typeof util.TextEncoder, typeof util.debuglog('x'), util.toUSVString('a\ud800b'));
