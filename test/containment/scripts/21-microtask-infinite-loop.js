// @attack: an endless chain of microtasks (queueMicrotask and promise reactions): the top level
// @attack: returns at once, the loop lives in the microtask queue.
// @expect: CPU WALL MEMORY
// (the promise chain keeps every level pending, so it also grows the heap: on a fast or busy
// machine the 64 MB heap limit may end it before the CPU limit does; either ends it, contained)
// @tier: trusted
function again() { queueMicrotask(again); }
again();
Promise.resolve().then(function loop() { return Promise.resolve().then(loop); });
