// @attack: awaits a promise that never resolves while a timer chain keeps the event loop busy,
// @attack: so an empty-loop exit cannot help: only the wall limit ends it.
// @expect: WALL
// @tier: trusted
function tick() { setTimeout(tick, 50); }
tick();
await new Promise(() => {});
