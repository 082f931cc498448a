// flags: (none)
// args: (none)
// Deno.exit(3): the status is 3, nothing after it runs, pending timers never fire.
setTimeout(() => console.log('timer must not fire'), 0);
console.log('before exit');
Deno.exit(3);
console.log('after exit: must not print');
