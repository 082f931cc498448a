/**
 * Checkpoints on both backends: a bounded resumption record per task, every one kept, the
 * latest one retrievable; oversize or malformed records are refused whole.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKENDS, assertKernelError, by, freshStore } from './helpers.ts';

const body = {
  changedPaths: ['engine/src/alloc.c', 'engine/tests/alloc_test.c'],
  commands: [{ command: 'make test', result: '41 passed, 1 failed', exitCode: 1 }],
  artifacts: [{ path: 'build/engine', sha256: 'a'.repeat(64) }],
  openSurprises: ['S-0001'],
  heldLeases: ['build-host'],
  sessionId: 'session-7',
  model: { requested: 'sol', observed: 'sol' },
  nextAction: 'fix the failing alloc boundary test, then rerun make test',
};

for (const backend of BACKENDS) {
  describe(`checkpoints on ${backend}`, () => {
    test('every checkpoint is kept in order and the latest is retrievable', () => {
      const { store } = freshStore(backend);
      const task = store.addTask({ title: 'alloc slice', by, now: 1 });
      assert.equal(store.latestCheckpoint(task.id), undefined);
      const first = store.addCheckpoint(task.id, body, { by: 'implementer', now: 100 });
      assert.deepEqual(first, { taskId: task.id, seq: 1, at: 100, by: 'implementer', body });
      const second = store.addCheckpoint(task.id, { nextAction: 'hand off to the verifier' }, { by: 'implementer', now: 200 });
      // Omitted lists are recorded as empty, so a reader never has to guess.
      assert.deepEqual(second.body, { changedPaths: [], commands: [], artifacts: [], openSurprises: [], heldLeases: [], nextAction: 'hand off to the verifier' });
      assert.deepEqual(store.latestCheckpoint(task.id), second);
      assert.deepEqual(store.listCheckpoints(task.id).map((c) => c.seq), [1, 2]);
      assertKernelError(() => store.addCheckpoint('T-0404', body, { by, now: 1 }), 'RTC_ERR_LEDGER_NOT_FOUND', 'T-0404');
      store.close();
    });

    test('the bounds are enforced: counts, string lengths, total size, required next action', () => {
      const { store } = freshStore(backend);
      const task = store.addTask({ title: 'bounded', by, now: 1 });
      const at = { by, now: 2 };
      const paths = (n: number) => Array.from({ length: n }, (_, i) => `src/file-${i}.ts`);
      store.addCheckpoint(task.id, { changedPaths: paths(200), nextAction: 'ok at the limit' }, at);
      assertKernelError(() => store.addCheckpoint(task.id, { changedPaths: paths(201), nextAction: 'x' }, at), 'RTC_ERR_LEDGER_INPUT', 'checkpoint.changedPaths');
      assertKernelError(() => store.addCheckpoint(task.id, { nextAction: 'x'.repeat(2_001) }, at), 'RTC_ERR_LEDGER_INPUT', 'checkpoint.nextAction');
      assertKernelError(() => store.addCheckpoint(task.id, { nextAction: '' }, at), 'RTC_ERR_LEDGER_INPUT', 'checkpoint.nextAction');
      assertKernelError(() => store.addCheckpoint(task.id, {} as never, at), 'RTC_ERR_LEDGER_INPUT', 'checkpoint.nextAction');
      assertKernelError(
        () => store.addCheckpoint(task.id, { commands: Array.from({ length: 101 }, () => ({ command: 'ls', result: '' })), nextAction: 'x' }, at),
        'RTC_ERR_LEDGER_INPUT',
        'checkpoint.commands',
      );
      assertKernelError(() => store.addCheckpoint(task.id, { nextAction: 'x', prose: 'a long history' } as never, at), 'RTC_ERR_LEDGER_INPUT', 'checkpoint');
      assertKernelError(() => store.addCheckpoint(task.id, { nextAction: 'x', openSurprises: ['not-an-id'] }, at), 'RTC_ERR_LEDGER_INPUT', 'openSurprises');
      // Within every per-field bound but too large as a whole: raw logs belong in evidence.
      const bulky = { changedPaths: Array.from({ length: 200 }, (_, i) => `${i}-${'p'.repeat(1_900)}`), nextAction: 'x' };
      assertKernelError(() => store.addCheckpoint(task.id, bulky, at), 'RTC_ERR_LEDGER_INPUT', 'bytes');
      assert.equal(store.listCheckpoints(task.id).length, 1, 'refused checkpoints leave nothing behind');
      store.close();
    });
  });
}
