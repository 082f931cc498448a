// flags: (none)
// args: (none)
// Built-ins newer than Node 20's V8 that Deno has: Promise.withResolvers, groupBy, Set methods, iterator helpers...
const { promise, resolve } = Promise.withResolvers<number>();
resolve(7);
console.log(await promise, await Promise.try(() => 8));
console.log(Object.groupBy([1, 2, 3, 4], (n) => (n % 2 ? 'odd' : 'even')));
console.log(Map.groupBy(['a', 'bb', 'cc'], (s) => s.length));
console.log(await Array.fromAsync((async function* () { yield 1; yield 2; })()));
const a = new Set([1, 2, 3]);
const b = new Set([3, 4]);
console.log(a.union(b), a.intersection(b), a.difference(b), a.symmetricDifference(b), a.isSubsetOf(new Set([1, 2, 3, 4])), a.isDisjointFrom(b));
console.log([1, 2, 3, 4].values().map((n) => n * 2).filter((n) => n > 2).take(2).toArray());
console.log(typeof Iterator, Iterator.from([5, 6]).drop(1).toArray(), [1, 2].values().reduce((x, y) => x + y), [1, 2].values().some((n) => n === 2));
console.log(RegExp.escape('a.b*c'), Math.sumPrecise([0.1, 0.2, 0.3]), Math.f16round(1.337), Error.isError(new TypeError()), Error.isError({}));
const bytes = Uint8Array.fromBase64('aGVsbG8=');
console.log(bytes, bytes.toHex(), Uint8Array.fromHex('ff00').toBase64());
console.log(typeof Symbol.dispose, typeof Symbol.asyncDispose, typeof DisposableStack, typeof SuppressedError);
{
  using res = { [Symbol.dispose]() { console.log('disposed'); } };
  console.log('in block', typeof res);
}
const m = new Map<string, number>();
console.log(m.getOrInsert('k', 1), m.getOrInsertComputed('j', () => 2), [...m]);
console.log(JSON.stringify({ raw: JSON.rawJSON('1e1000') }), JSON.isRawJSON(JSON.rawJSON('1')));
console.log([3, 1, 2].toSorted(), [1, 2, 3].toReversed(), [1, 2, 3].with(0, 9), 'ab'.isWellFormed(), [1, 2, 3].findLast((n) => n < 3));
