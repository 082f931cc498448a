// @attack: an unhandled rejection with a Proxy whose every trap loops, and an Error subclass
// @attack: whose stack getter loops: the host learns about the rejection after the script's
// @attack: top level has returned, so the formatting runs outside the first CPU stretch.
// @expect: error CPU WALL
// @tier: trusted
class Nasty extends Error { get stack() { for (;;) {} } get message() { for (;;) {} } }
const trap = () => { for (;;) {} };
const proxy = new Proxy({}, { get: trap, getPrototypeOf: trap, ownKeys: trap, has: trap, getOwnPropertyDescriptor: trap });
Promise.reject(proxy);
setTimeout(() => Promise.reject(new Nasty()), 1);
