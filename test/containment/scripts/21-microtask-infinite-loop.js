// @attack: an endless chain of microtasks (queueMicrotask and promise reactions): the top level
// @attack: returns at once, the loop lives in the microtask queue.
// @expect: CPU WALL
// @tier: trusted
function again() { queueMicrotask(again); }
again();
Promise.resolve().then(function loop() { return Promise.resolve().then(loop); });
