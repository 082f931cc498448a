// flags: (none)
// args: (none)
// Timers as Deno 2 has them: Timeout objects, clearTimeout !== clearInterval (either clears
// either), unref, setImmediate, out-of-range delays, refresh, bad callbacks.
const order: string[] = [];
const t = setTimeout(() => order.push('timeout'), 0);
console.log(typeof t, clearTimeout === clearInterval, setTimeout.name, setTimeout.length, clearTimeout.length, setInterval.length, typeof +t);
let immediate = false;
setImmediate(() => { immediate = true; });
queueMicrotask(() => order.push('microtask'));
const i = setInterval(() => order.push('never interval'), 5);
clearTimeout(i);
const j = setTimeout(() => order.push('never timeout'), 5);
clearInterval(j);
const byNumber = setTimeout(() => order.push('never by number'), 5);
clearTimeout(+byNumber);
const unref = setTimeout(() => console.log('unref never fires'), 10_000);
unref.unref();
console.log('hasRef', unref.hasRef(), t.hasRef());
// Fires after everything below (1 s: later than the rest takes even on a loaded machine), so the order holds.
const deno = setTimeout(() => console.log('Deno.unrefTimer does not unref a Timeout'), 1000);
Deno.unrefTimer(+deno);
setTimeout(() => order.push('huge delay runs at 1ms'), 2 ** 31);
setTimeout(() => order.push('negative'), -5);
setTimeout((a: string, b: string) => order.push(`args ${a} ${b}`), 1, 'x', 'y');
let ticks = 0;
const threeTicks = Promise.withResolvers<void>();
const every = setInterval(() => {
  ticks++;
  if (ticks === 3) {
    clearInterval(every);
    threeTicks.resolve();
  }
}, 1);
console.log(clearTimeout(undefined), clearTimeout('abc' as unknown as number), clearTimeout(99999));
try {
  setTimeout('1 + 1' as unknown as () => void);
} catch (e) {
  console.log((e as Error).name, (e as Error).message);
}
await new Promise((resolve) => setTimeout(resolve, 50));
await threeTicks.promise;
console.log(order, ticks, 'immediate ran', immediate);
const refreshed: number[] = [];
const r = setTimeout(() => refreshed.push(1), 20);
r.refresh();
await new Promise((resolve) => setTimeout(resolve, 60));
console.log('refresh fired once', refreshed);
