// @attack: an uncaught throw of a 2 MiB string: the error report itself is the flood (the test
// @attack: caps output at 1 MiB and checks what was written stays under it).
// @expect: error OUTPUT TRANSFER
throw 'y'.repeat(2 * 2 ** 20);
