// flags: (none)
// args: (none)
// Deno.exit from inside a timer, with other work still pending: status 5, nothing more printed.
setTimeout(() => console.log('late timer: must not print'), 200);
await new Promise((resolve) => setTimeout(resolve, 10));
console.log('after first await');
setTimeout(() => {
  console.log('exiting from timer');
  Deno.exit(5);
}, 10);
await new Promise((resolve) => setTimeout(resolve, 100));
console.log('must not print');
