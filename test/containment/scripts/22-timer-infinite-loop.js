// @attack: an async infinite loop through setTimeout(0): no synchronous stretch is long, the
// @attack: run simply never ends.
// @expect: WALL
// @tier: trusted
let n = 0;
function tick() { n++; setTimeout(tick, 0); }
tick();
