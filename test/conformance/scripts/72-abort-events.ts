// flags: (none)
// args: (none)
// AbortController/AbortSignal and EventTarget/Event: order, once, signal, errors, reasons.
const ac = new AbortController();
const order: string[] = [];
ac.signal.addEventListener('abort', (e) => order.push(`listener ${e.type} ${(e.target as AbortSignal) === ac.signal}`));
ac.signal.onabort = () => order.push('onabort');
console.log(ac.signal.aborted, ac.signal.reason);
ac.abort();
ac.abort();
console.log(order, ac.signal.aborted, ac.signal.reason instanceof DOMException, ac.signal.reason.name, ac.signal.reason.message, ac.signal.reason.code);
const custom = new AbortController();
custom.abort('why');
console.log(custom.signal.reason, AbortSignal.abort().reason.name, AbortSignal.abort(42).reason);
try {
  custom.signal.throwIfAborted();
} catch (e) {
  console.log('throwIfAborted', e);
}
try {
  new (AbortSignal as unknown as new () => AbortSignal)();
} catch (e) {
  console.log((e as Error).name, (e as Error).message);
}
const timeout = AbortSignal.timeout(5);
await new Promise((r) => setTimeout(r, 40));
console.log('timeout', timeout.aborted, timeout.reason.name, timeout.reason.message);
const a1 = new AbortController();
const anyOf = AbortSignal.any([a1.signal, new AbortController().signal]);
a1.abort('first');
console.log('any', anyOf.aborted, anyOf.reason, AbortSignal.any([AbortSignal.abort('pre')]).reason);
console.log(Object.prototype.toString.call(ac), Object.prototype.toString.call(ac.signal), String(new EventTarget()));
console.log(new AbortController());
const target = new EventTarget();
const seen: string[] = [];
const once = () => seen.push('once');
target.addEventListener('x', () => seen.push('a'));
target.addEventListener('x', { handleEvent: () => seen.push('object') });
target.addEventListener('x', once, { once: true });
target.addEventListener('x', once);
target.addEventListener('x', (e) => { seen.push('stop'); e.stopImmediatePropagation(); });
target.addEventListener('x', () => seen.push('never'));
const ev = new Event('x', { cancelable: true });
console.log(target.dispatchEvent(ev), seen, ev.eventPhase, ev.target === target, ev.currentTarget);
target.dispatchEvent(new Event('x'));
console.log(seen.length);
target.addEventListener('c', (e) => e.preventDefault());
console.log(target.dispatchEvent(new Event('c', { cancelable: true })), target.dispatchEvent(new Event('c')));
const removal = new AbortController();
target.addEventListener('r', () => console.log('never fires'), { signal: removal.signal });
removal.abort();
target.dispatchEvent(new Event('r'));
const nested = new Event('n');
target.addEventListener('n', () => {
  try {
    target.dispatchEvent(nested);
  } catch (e) {
    console.log('nested', (e as Error).name, (e as Error).message);
  }
});
target.dispatchEvent(nested);
console.log(new Event('e'));
console.log(new CustomEvent('c', { detail: { k: 1 } }).detail, new ErrorEvent('error', { message: 'm' }).message, new MessageEvent('message', { data: [1] }).data);
console.log(Event.NONE, Event.CAPTURING_PHASE, Event.AT_TARGET, Event.BUBBLING_PHASE, new Event('x').AT_TARGET);
for (const bad of [() => new Event(undefined as unknown as string).type, () => (new (Event as unknown as new () => Event)()), () => target.addEventListener('x' as string, undefined as unknown as EventListener), () => target.dispatchEvent({} as Event)]) {
  try {
    console.log('ok', bad());
  } catch (e) {
    console.log((e as Error).name, (e as Error).message);
  }
}
globalThis.addEventListener('error', (e) => {
  console.log('global error event', (e as ErrorEvent).message);
  e.preventDefault();
});
target.addEventListener('t', () => {
  throw new Error('thrown in a listener');
});
target.dispatchEvent(new Event('t'));
console.log('still running', typeof dispatchEvent, typeof reportError);
