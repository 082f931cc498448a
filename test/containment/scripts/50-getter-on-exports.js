// @attack: module exports with looping getters, for a runner that reads or copies what a module
// @attack: exports (a plugin's returned value) after the top level has run.
// @expect: contained CPU WALL
// @tier: trusted
export default { get x() { for (;;) {} }, toJSON() { for (;;) {} } };
export const y = new Proxy({}, { get() { for (;;) {} }, ownKeys() { for (;;) {} }, getPrototypeOf() { for (;;) {} } });
console.log('CONTAINED');
