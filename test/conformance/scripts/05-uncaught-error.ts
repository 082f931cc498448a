// flags: (none)
// args: (none)
// An uncaught Error exits 1; what was printed before stays on stdout.
console.log('before throw');
function fail(): never {
  throw new Error('boom');
}
fail();
console.log('after throw: must not print');
