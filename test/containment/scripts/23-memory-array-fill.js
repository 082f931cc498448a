// @attack: the memory bomb that aborts a whole Node process (isolated-vm issue #527): a
// @attack: 96-million-element array filled with doubles. Not for the trusted tier.
// @expect: MEMORY CRASHED
const a = new Array(96e6);
for (let i = 0; i < a.length; i++) a[i] = i + 0.5;
console.log(a.length);
