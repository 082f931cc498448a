// @attack: a 32 MiB argument to a function that crosses to the host (the profile caps any one
// @attack: value crossing the boundary; the test sets that cap to 4 MiB).
// @expect: TRANSFER MEMORY
const big = 'A'.repeat(32 * 2 ** 20);
Deno.env.get(big);
console.log('returned');
