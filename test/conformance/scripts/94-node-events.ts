// flags: (none)
// args: (none)
// node:events: listeners in order, once, prepend, errors, errorMonitor, the static helpers.
import EventEmitter, { errorMonitor, getEventListeners, on, once } from 'node:events';
const e = new EventEmitter();
const log: string[] = [];
e.on('x', (v) => log.push(`a${v}`));
e.prependListener('x', (v) => log.push(`p${v}`));
e.once('x', (v) => log.push(`o${v}`));
console.log(e.emit('x', 1), e.emit('x', 2), e.emit('nothing'), log.join(','));
console.log(e.listenerCount('x'), e.eventNames(), e.getMaxListeners(), EventEmitter.defaultMaxListeners);
const f = () => {};
e.on('y', f);
e.off('y', f);
console.log(e.listenerCount('y'), e.rawListeners('x').length, getEventListeners(e, 'x').length);
try {
  e.emit('error', new Error('boom'));
} catch (err) {
  console.log('thrown:', (err as Error).message);
}
try {
  e.emit('error', 'not an error');
} catch (err) {
  console.log('thrown:', (err as { code?: string }).code, (err as Error).message);
}
e.on(errorMonitor, (err) => console.log('monitor saw', (err as Error).message));
e.on('error', (err) => console.log('handled', (err as Error).message));
e.emit('error', new Error('second'));
class Sub extends EventEmitter {
  fire() {
    this.emit('ping', this instanceof Sub);
  }
}
const s = new Sub();
s.on('ping', function (this: Sub, ok) {
  console.log('ping', ok, this === s);
});
s.fire();
setTimeout(() => s.emit('later', 'value', 2), 1);
console.log('once', await once(s, 'later'));
const ac = new AbortController();
setTimeout(() => {
  s.emit('tick', 1);
  s.emit('tick', 2);
  ac.abort();
}, 1);
const seen: unknown[] = [];
try {
  for await (const [v] of on(s, 'tick', { signal: ac.signal })) seen.push(v);
} catch (err) {
  console.log('iteration ended:', (err as Error).name, seen);
}
e.removeAllListeners();
console.log(e.eventNames().length, new EventEmitter());
try {
  e.on('x', 'nope' as never);
} catch (err) {
  console.log((err as { code?: string }).code, (err as Error).message);
}
