// @attack: an uncaught throw of a 16 MiB string: the error report itself is the flood.
// @expect: error OUTPUT TRANSFER
throw 'y'.repeat(16 * 2 ** 20);
