// @attack: JSON.parse of ten million nested arrays, then formatting it.
// @attack: JSON.parse is one native call that no timeout interrupts: the RSS cap or the wall
// @attack: watchdog has to end it.
// @expect: MEMORY CRASHED CPU WALL error
const depth = 1e7;
const deep = JSON.parse('['.repeat(depth) + ']'.repeat(depth));
console.log(deep);
console.log(JSON.stringify(deep).length);
