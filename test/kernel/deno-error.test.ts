/**
 * asDenoOpError (kernel/broker/deno-error.ts): how a host failure behind an op reaches the plugin,
 * one rule for the bindings (forward) and the storage bindings. A kernel error's code is data
 * beside its message, never inside it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asDenoOpError, DenoOpError } from '../../kernel/broker/deno-error.ts';
import { forward } from '../../kernel/broker/bindings.ts';
import { kernelError } from '../../kernel/errors.ts';

test("a kernel error becomes an Error whose code is data and whose message is the kernel error's own", () => {
  const e = asDenoOpError(kernelError('RTC_ERR_LEDGER_NOT_FOUND', 'no task "T-9" in the ledger'));
  assert.equal(e.denoClass, 'Error');
  assert.equal(e.message, 'no task "T-9" in the ledger');
  assert.equal(e.osCode, 'RTC_ERR_LEDGER_NOT_FOUND');
});

test('an op error passes as it is; any other failure by its message, with its own code if it has one', () => {
  const op = new DenoOpError('NotFound', 'No such file or directory (os error 2)', 'ENOENT');
  assert.equal(asDenoOpError(op), op);
  const plain = asDenoOpError(new Error('the backend broke'));
  assert.deepEqual([plain.denoClass, plain.message, plain.osCode], ['Error', 'the backend broke', undefined]);
  const coded = asDenoOpError(Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' }));
  assert.equal(coded.osCode, 'SQLITE_BUSY');
  assert.equal(asDenoOpError('a thrown string').message, 'a thrown string');
});

test("forward raises an implementation's kernel error the same way", async () => {
  await assert.rejects(
    forward(() => {
      throw kernelError('RTC_ERR_LEDGER_INPUT', 'unknown task state "x"');
    }),
    (e: unknown) => e instanceof DenoOpError && e.denoClass === 'Error' && e.osCode === 'RTC_ERR_LEDGER_INPUT' && e.message === 'unknown task state "x"',
  );
});
