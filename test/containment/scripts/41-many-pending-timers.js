// @attack: a million pending timers, each due in ~11 days: host-side bookkeeping, then a run
// @attack: that would never end on its own.
// @expect: CPU WALL MEMORY error
for (let i = 0; i < 1e6; i++) setTimeout(() => {}, 1e9);
console.log('scheduled');
