// @attack: JSON.parse of ten million nested arrays, then formatting it.
// @expect: MEMORY CRASHED CPU error
const depth = 1e7;
const deep = JSON.parse('['.repeat(depth) + ']'.repeat(depth));
console.log(deep);
console.log(JSON.stringify(deep).length);
