// flags: (none)
// args: (none)
// An error thrown from a timer callback is uncaught: exit 1, later timers never fire.
setTimeout(() => {
  console.log('first timer');
  throw new TypeError('thrown in a timer');
}, 5);
setTimeout(() => console.log('second timer: must not print'), 50);
console.log('scheduled');
