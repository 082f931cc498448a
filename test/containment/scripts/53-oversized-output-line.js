// @attack: one console.log of an 8 MiB line: over both the 1 MiB output cap and the 4 MiB
// @attack: transfer cap the test sets; the script tries to catch the failure and go on.
// @expect: TRANSFER OUTPUT
try { console.log('z'.repeat(8 * 2 ** 20)); } catch (e) { console.error('caught', e && e.name); }
console.log('kept going');
