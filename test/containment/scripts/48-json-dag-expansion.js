// @attack: a 40-level DAG whose JSON expansion is 2^40 nodes: JSON.stringify would produce
// @attack: terabytes, one small object at a time.
// @expect: CPU MEMORY CRASHED error
let o = { leaf: 1 };
for (let i = 0; i < 40; i++) o = { a: o, b: o };
const s = JSON.stringify(o);
console.log(s.length);
