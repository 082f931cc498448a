// flags: (none)
// args: (none)
// An async function that rejects later, after an await, with nobody awaiting it: exit 1 once it
// rejects; the module body and earlier timers have run, later timers never fire.
async function failLater(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 20));
  console.log('about to reject');
  throw new RangeError('late async failure');
}
setTimeout(() => console.log('timer before the rejection'), 5);
setTimeout(() => console.log('timer after the rejection: must not print'), 200);
void failLater();
console.log('module body done');
