// @attack: Error.prepareStackTrace loops forever, then an uncaught error is thrown from a timer:
// @attack: whoever reads .stack to report it runs the loop.
// @expect: error CPU WALL
// @tier: trusted
Error.prepareStackTrace = () => { for (;;) {} };
setTimeout(() => { throw new Error('late'); }, 1);
