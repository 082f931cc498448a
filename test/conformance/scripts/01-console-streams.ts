// flags: (none)
// args: (none)
// stderr: exact
// console.log and console.info go to stdout; console.error and console.warn go to stderr.
console.log('log line');
console.info('info line');
console.error('error line');
console.warn('warn line');
console.log('several', 'arguments', 42, true);
console.log('');
console.log();
console.log('done');
