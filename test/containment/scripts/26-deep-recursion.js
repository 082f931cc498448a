// @attack: unbounded recursion; V8 raises RangeError (Maximum call stack size exceeded) inside
// @attack: the isolate, which is an ordinary uncaught error: exit status 1.
// @expect: error
// @exit: 1
// @stderr-has: Maximum call stack size exceeded
// @tier: trusted
function f(n) { return f(n + 1) + 1; }
f(0);
