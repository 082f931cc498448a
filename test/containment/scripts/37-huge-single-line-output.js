// @attack: one console.log of a 2 MiB line: over the 1 MiB output cap the test sets, under the
// @attack: 4 MiB transfer cap.
// @expect: OUTPUT
try { console.log('x'.repeat(2 * 2 ** 20)); } catch (e) { console.error('caught', e && e.name); }
console.log('kept going');
