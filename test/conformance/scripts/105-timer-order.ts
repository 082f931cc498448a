// flags: (none)
// args: (none)
// Timer order and life as Deno 2.9 (Node's timers) has them: timers due together run by
// creation with the microtask queue drained between them; timers a callback sets wait for
// the next turn, after the immediates those callbacks set; an interval's next tick counts
// from when its callback started; delays and ids coerced as numbers (a BigInt throws);
// refresh() revives a fired timeout but not a cleared one; Deno.unrefTimer/refTimer take a
// Timeout object (a number is no timer of a script's); warnings for replaced delays; an
// AbortSignal.timeout keeps the run alive only while someone listens for its abort.
const out: string[] = [];
await new Promise<void>((done) => {
  setTimeout(() => {
    out.push('1');
    setTimeout(() => out.push('4'));
    Promise.resolve().then(() => out.push('1 microtask')).then(() => out.push('1 microtask 2'));
    setImmediate(() => out.push('immediate set by 1'));
  }, 0);
  setTimeout(() => {
    out.push('2');
    setTimeout(() => out.push('5'));
  }, 0);
  setTimeout(() => {
    out.push('3');
    setTimeout(() => {
      out.push('6');
      setTimeout(done, 20);
    });
  }, 0);
  // all three are overdue before the loop turns, whatever the load: they run in one turn
  const start = performance.now();
  while (performance.now() - start < 30) { /* busy */ }
});
console.log(out.join(', '));

// A callback slower than its interval: the next tick follows at once (about 150 ms apart, not 250).
const gaps: number[] = [];
await new Promise<void>((resolve) => {
  let previous = 0;
  const id = setInterval(() => {
    const now = performance.now();
    if (previous > 0) gaps.push(now - previous);
    previous = now;
    if (gaps.length === 3) {
      clearInterval(id);
      resolve();
    }
    while (performance.now() - now < 150) { /* busy */ }
  }, 100);
});
console.log('interval ticks follow a slow callback at once:', gaps.every((g) => g < 240));

let converted = false;
clearTimeout({ valueOf: () => { converted = true; return 0; } } as unknown as number);
console.log('clearTimeout converts its argument:', converted);
for (const attempt of [() => setTimeout(() => {}, 1n as unknown as number), () => setInterval(() => {}, 1n as unknown as number), () => clearTimeout(1n as unknown as number), () => clearInterval(2n as unknown as number)]) {
  try {
    attempt();
    console.log('no error');
  } catch (e) {
    console.log((e as Error).name, (e as Error).message);
  }
}
const byString = setTimeout(() => console.log('never: cleared by its number as a string'), 5);
clearTimeout(String(+byString) as unknown as number);
byString.refresh();
let firedTimes = 0;
const revived = setTimeout(() => firedTimes++, 5);
await new Promise((r) => setTimeout(r, 30));
revived.refresh();
await new Promise((r) => setTimeout(r, 30));
console.log('a fired timeout refreshed fires again:', firedTimes);

process.on('warning', (w) => console.log('warning', w.name, JSON.stringify(w.message)));
setTimeout(() => {}, 2 ** 31);
setTimeout(() => {}, -1);
setTimeout(() => {}, -2);
setTimeout(() => {}, 'soon' as unknown as number);
setTimeout(() => {}, NaN);
await new Promise((r) => setTimeout(r, 10));

const unrefd = setTimeout(() => console.log('never: unref by Deno.unrefTimer'), 60_000);
Deno.unrefTimer(unrefd);
console.log('hasRef after Deno.unrefTimer', unrefd.hasRef());
Deno.refTimer(unrefd);
console.log('hasRef after Deno.refTimer', unrefd.hasRef());
Deno.unrefTimer(unrefd);
Deno.unrefTimer(NaN);
Deno.refTimer(12345);
Deno.unrefTimer({} as unknown as number);
const interval = setInterval(() => {}, 5);
interval.unref();
// A timeout's signal: kept alive by a listener, by an `any` signal's listener and by an
// onabort handler; not by a listener removed, by one for another event, or by none.
const heard = AbortSignal.timeout(300);
heard.addEventListener('abort', () => console.log('heard the timeout abort', heard.reason.name));
const removed = AbortSignal.timeout(60_000);
const gone = () => console.log('never: removed listener');
removed.addEventListener('abort', gone);
removed.removeEventListener('abort', gone);
AbortSignal.timeout(60_000).addEventListener('other', () => console.log('never: other event'));
AbortSignal.timeout(60_000);
const dependent = AbortSignal.any([AbortSignal.timeout(350)]);
dependent.addEventListener('abort', () => console.log('heard through AbortSignal.any'));
const handled = AbortSignal.timeout(400);
handled.onabort = () => console.log('heard through onabort');
const cleared = AbortSignal.timeout(60_000);
cleared.onabort = null;
console.log('end of script');
