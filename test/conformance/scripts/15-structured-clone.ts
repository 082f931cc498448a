// flags: (none)
// args: (none)
// structuredClone: deep copy of plain data, Map/Set/Date/RegExp/typed arrays, cycles, and its errors.
const original = {
  n: 1, s: 'str', b: true, nil: null, list: [1, { deep: 'x' }],
  date: new Date(Date.UTC(2020, 0, 2, 3, 4, 5)),
  map: new Map<string, number>([['one', 1]]), set: new Set(['a', 'b']),
  re: /ab+c/gi, bytes: new Uint8Array([1, 2, 3]),
};
const copy = structuredClone(original);
console.log(copy !== original, copy.list !== original.list, copy.list[1] !== original.list[1]);
console.log(JSON.stringify(copy.list), copy.date instanceof Date, copy.date.toISOString());
console.log(copy.map instanceof Map, copy.map.get('one'), copy.set instanceof Set, [...copy.set].join(','));
console.log(copy.re instanceof RegExp, copy.re.source, copy.re.flags);
console.log(copy.bytes instanceof Uint8Array, Array.from(copy.bytes).join(','));
const cyclic: { self?: unknown; name: string } = { name: 'loop' };
cyclic.self = cyclic;
const cc = structuredClone(cyclic);
console.log(cc.self === cc, cc !== cyclic);
const err = structuredClone(new RangeError('cloned error'));
console.log(err instanceof RangeError, err.message);
try {
  structuredClone({ f: () => 1 });
} catch (e) {
  console.log('function:', (e as Error).name);
}
try {
  structuredClone(Symbol('s'));
} catch (e) {
  console.log('symbol:', (e as Error).name);
}
