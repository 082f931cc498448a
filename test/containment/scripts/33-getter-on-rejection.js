// @attack: an unhandled rejection with a Proxy whose every trap loops, and an Error subclass
// @attack: whose stack getter loops: the host learns about the rejection after the script's
// @attack: top level has returned, so the formatting runs outside the first CPU stretch.
// @expect: error CPU WALL
// Process tier only: isolated-vm copies an unhandled rejection's value at the end of a task,
// outside any timeout; these traps wedge the isolate's thread for good. In the trusted tier
// that thread lives in the kernel (see docs/design-notes.md, "the wedge hazard"); in the
// process tier the kernel kills the sandbox host process.
class Nasty extends Error { get stack() { for (;;) {} } get message() { for (;;) {} } }
const trap = () => { for (;;) {} };
const proxy = new Proxy({}, { get: trap, getPrototypeOf: trap, ownKeys: trap, has: trap, getOwnPropertyDescriptor: trap });
Promise.reject(proxy);
setTimeout(() => Promise.reject(new Nasty()), 1);
