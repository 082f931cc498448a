// @attack: one console.log of a 16 MiB line (the test sets the output cap to 1 MiB and the
// @attack: transfer cap to 4 MiB).
// @expect: OUTPUT TRANSFER
console.log('x'.repeat(16 * 2 ** 20));
