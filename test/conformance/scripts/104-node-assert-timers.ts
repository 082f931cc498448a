// flags: (none)
// args: (none)
// node:assert (messages, diffs, strict mode) and node:timers / node:timers/promises.
import assert from 'node:assert';
import strict from 'node:assert/strict';
import timers from 'node:timers';
import { setTimeout as sleep, setImmediate as immediate } from 'node:timers/promises';
const show = (label: string, fn: () => unknown) => {
  try {
    fn();
    console.log(label, 'passed');
  } catch (e) {
    const x = e as Error & { code?: string; operator?: string; generatedMessage?: boolean };
    console.log(label, x.name, x.code, x.operator, x.generatedMessage, JSON.stringify(x.message));
  }
};
show('ok', () => assert.ok(1));
show('ok falsy', () => assert.ok(0));
show('equal loose', () => assert.equal(1, '1'));
show('equal', () => assert.equal(1, 2));
show('strictEqual', () => assert.strictEqual('a', 'b'));
show('deepStrictEqual', () => assert.deepStrictEqual({ a: 1, b: [1, 2] }, { a: 1, b: [1, 3] }));
show('deepEqual loose', () => assert.deepEqual({ a: 1 }, { a: '1' }));
show('notDeepStrictEqual', () => assert.notDeepStrictEqual({ a: 1 }, { a: 1 }));
show('throws', () => assert.throws(() => { throw new TypeError('bad'); }, TypeError));
show('throws object', () => assert.throws(() => { throw new Error('msg'); }, { message: 'msg' }));
show('throws missing', () => assert.throws(() => {}));
show('match', () => assert.match('abc', /z/));
show('strict equal', () => strict.equal(1, '1' as unknown as number));
show('fail', () => assert.fail('stop'));
show('ifError', () => assert.ifError(new Error('e')));
console.log('rejects', await assert.rejects(Promise.resolve(1)).catch((e: Error) => e.message));
console.log(timers.setTimeout === setTimeout, typeof timers.setImmediate, typeof timers.promises.setTimeout);
console.log(await sleep(2, 'slept'), await immediate('immediate'));
const ac = new AbortController();
const pending = sleep(1000, 'never', { signal: ac.signal }).catch((e: Error) => `${e.name} ${(e as { code?: string }).code}`);
ac.abort();
console.log(await pending);
