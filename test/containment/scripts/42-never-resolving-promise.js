// @attack: a top-level await on a promise that never resolves, with nothing pending. Deno 2
// @attack: exits at once with status 1 ("Top-level await promise never resolved"); the sandbox
// @attack: must end it that way or by the wall limit, never hang.
// @expect: error WALL
// @tier: trusted
await new Promise(() => {});
console.log('unreachable');
