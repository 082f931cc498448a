// @attack: a synchronous infinite loop at top level.
// @expect: CPU WALL
// @tier: trusted
for (;;) {}
