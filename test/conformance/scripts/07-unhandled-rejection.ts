// flags: (none)
// args: (none)
// An unhandled rejection exits 1, after the synchronous part of the module has run.
console.log('before');
Promise.reject(new Error('rejected and never handled'));
console.log('after (still synchronous)');
