// flags: (none)
// args: (none)
// DOMException (names, legacy codes, stack accessor, options), QuotaExceededError, atob/btoa errors.
const e = new DOMException('it broke', 'SyntaxError');
console.log(e.name, e.message, e.code, String(e), e instanceof Error, Object.prototype.toString.call(e));
console.log(new DOMException().name, JSON.stringify(new DOMException().message), new DOMException('m', 'Unknown').code, new DOMException('m', { name: 'NotFoundError', cause: 'c' }).cause);
const desc = Object.getOwnPropertyDescriptor(new DOMException('s'), 'stack');
console.log(typeof desc?.get, typeof desc?.set, (new DOMException('s').stack ?? '').split('\n')[0]);
console.log(DOMException.SYNTAX_ERR, e.NOT_FOUND_ERR, DOMException.DATA_CLONE_ERR, Object.getOwnPropertyNames(DOMException.prototype).length);
const q = new QuotaExceededError('over', { quota: 10, requested: 5 });
console.log(q instanceof DOMException, q.name, q.code, q.quota, q.requested, new QuotaExceededError().quota, new DOMException('x', 'QuotaExceededError').code);
try {
  new QuotaExceededError('x', { quota: -1 });
} catch (err) {
  console.log((err as Error).name, (err as Error).message);
}
for (const input of ['aGVsbG8=', ' aGVs bG8 = ', 'YQ', '!!!', 'abc=d', 'aGVsb']) {
  try {
    console.log('atob', JSON.stringify(input), JSON.stringify(atob(input)));
  } catch (err) {
    const x = err as DOMException;
    console.log('atob', JSON.stringify(input), x.name, x.message, x instanceof DOMException, x.code);
  }
}
for (const input of ['hello', 'é', 'é€']) {
  try {
    console.log('btoa', JSON.stringify(input), btoa(input));
  } catch (err) {
    const x = err as DOMException;
    console.log('btoa', JSON.stringify(input), x.name, x.message, x instanceof DOMException, x.code);
  }
}
for (const fn of [atob, btoa]) {
  try {
    (fn as unknown as () => string)();
  } catch (err) {
    console.log(fn.name, (err as Error).name, (err as Error).message);
  }
}
try {
  structuredClone(() => 1);
} catch (err) {
  console.log('structuredClone', (err as Error).name, (err as DOMException).code);
}
