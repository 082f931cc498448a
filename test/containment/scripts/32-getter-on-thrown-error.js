// @attack: an uncaught thrown object whose name/message/stack getters loop: whoever formats the
// @attack: uncaught error (inside the isolate, or the host copying it out) runs the getters.
// @expect: error CPU WALL
// @tier: trusted
throw {
  get name() { for (;;) {} },
  get message() { for (;;) {} },
  get stack() { for (;;) {} },
  toString() { for (;;) {} },
  [Symbol.toPrimitive]() { for (;;) {} },
};
