// flags: (none)
// args: (none)
// Ordering of sync code, microtasks, promise reactions and timers; clearTimeout; top-level await.
const order: string[] = [];
setTimeout(() => order.push('timeout 20'), 20);
setTimeout(() => order.push('timeout 0 a'), 0);
setTimeout(() => order.push('timeout 0 b'), 0);
const cancelled = setTimeout(() => order.push('cancelled: must not run'), 1);
clearTimeout(cancelled);
queueMicrotask(() => order.push('microtask 1'));
Promise.resolve().then(() => order.push('promise then'));
queueMicrotask(() => order.push('microtask 2'));
order.push('sync');
await new Promise((resolve) => setTimeout(resolve, 60));
order.push('after top-level await');
for (const step of order) console.log(step);
const value = await new Promise<string>((resolve) => queueMicrotask(() => resolve('awaited value')));
console.log(value);
