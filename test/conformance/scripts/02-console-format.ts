// flags: (none)
// args: (none)
// How console.log renders common values (Deno's inspect: double-quoted strings inside objects).
console.log({ a: 1, b: 'x', c: [1, 2, 'y'], d: { e: null, f: undefined } });
console.log([1, 2, 3], [], {});
console.log(null, undefined, true, false);
console.log(1.5, -0, 0, NaN, Infinity, 10n);
console.log('plain string', ['string in array']);
console.log({ nested: { deeper: { deepest: { gone: 1 } } } });
console.log('%s is %d years', 'Ada', 36);
console.log(new Map([['k', 1]]), new Set([1, 2]));
console.log([undefined, null, 'q']);
