// flags: (none)
// args: (none)
// Throwing a non-Error value still exits 1.
console.log('before throw');
throw 'a plain string';
