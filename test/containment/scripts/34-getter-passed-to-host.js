// @attack: values with looping toString/toJSON/getters passed as arguments to functions that
// @attack: reach the host (Deno.writeTextFile, Deno.env.get, Command options), so that any
// @attack: host-side read of a live object would hang outside the CPU limit.
// @expect: CPU WALL error
// @tier: trusted
const path = { toString() { for (;;) {} }, toJSON() { for (;;) {} }, get length() { for (;;) {} } };
const options = { get args() { for (;;) {} }, get env() { for (;;) {} }, get cwd() { for (;;) {} } };
await Promise.allSettled([
  Promise.resolve().then(() => Deno.env.get(path)),
  Promise.resolve().then(() => new Deno.Command('true', options).output()),
  Promise.resolve().then(() => Deno.writeTextFile(path, path)),
]);
console.log('settled');
