// @attack: an 8 MiB argument to a function that crosses to the host (Deno.env.get); the test
// @attack: caps any one value crossing the boundary at 4 MiB, and the issue asks for a named
// @attack: kernel error when a limit is exceeded.
// @expect: TRANSFER
const big = 'A'.repeat(8 * 2 ** 20);
try { Deno.env.get(big); } catch (e) { console.log('caught', e && e.name); }
console.log('kept going');
