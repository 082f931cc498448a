/**
 * Surprises on both backends: recording one blocks the tasks it names (remembering where
 * each was), a blocked task cannot move on while a surprise naming it is open, and resolving
 * the last open surprise naming a task returns it to where it was.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LedgerStore, TaskState } from '../index.ts';
import { BACKENDS, assertKernelError, by, freshStore } from './helpers.ts';

function taskAt(store: LedgerStore, title: string, route: TaskState[]): string {
  const { id } = store.addTask({ title, by, now: 1 });
  for (const step of route) store.moveTask(id, step, { by, now: 2 });
  return id;
}

for (const backend of BACKENDS) {
  describe(`surprises on ${backend}`, () => {
    test('a surprise blocks the tasks it names and its resolution unblocks them', () => {
      const { store } = freshStore(backend);
      const a = taskAt(store, 'alloc', ['ready', 'implementing']);
      const b = taskAt(store, 'events', ['ready', 'implementing', 'verification']);
      const c = taskAt(store, 'unrelated', ['ready']);
      const { surprise, blocked } = store.recordSurprise({
        observation: 'allocation order differs from the captured trace',
        evidence: ['evidence/trace-17.jsonl#sha256=ab12'],
        affects: [a, b, a],
        by: 'verifier',
        now: 50,
      });
      assert.equal(surprise.id, 'S-0001');
      assert.deepEqual(surprise.affects, [a, b], 'duplicates are named once');
      assert.deepEqual(blocked, [a, b]);
      assert.equal(store.getTask(a).state, 'blocked');
      assert.equal(store.getTask(a).blockedFrom, 'implementing');
      assert.equal(store.getTask(b).blockedFrom, 'verification');
      assert.deepEqual(store.getTask(a).history.at(-1), { at: 50, by: 'verifier', from: 'implementing', to: 'blocked', reason: 'surprise S-0001: allocation order differs from the captured trace' });
      // Unaffected contracted work may continue.
      assert.equal(store.moveTask(c, 'implementing', { by, now: 51 }).state, 'implementing');
      // Not forward, and not back to where it was, while the surprise is open.
      assertKernelError(() => store.moveTask(a, 'implementing', { by, now: 52 }), 'RTC_ERR_LEDGER_BLOCKED', 'S-0001', 'resolve');
      assertKernelError(() => store.moveTask(a, 'verification', { by, now: 52 }), 'RTC_ERR_LEDGER_TRANSITION', 'implementing');
      assert.deepEqual(store.nextStates(a), []);

      const { surprise: done, unblocked } = store.resolveSurprise('S-0001', { outcome: 'instrument interference; claim survives', by: 'astra', now: 60 });
      assert.deepEqual(unblocked, [a, b]);
      assert.deepEqual([done.state, done.resolvedAt, done.resolvedBy, done.outcome], ['resolved', 60, 'astra', 'instrument interference; claim survives']);
      assert.equal(store.getTask(a).state, 'implementing');
      assert.equal(store.getTask(b).state, 'verification');
      assert.equal(store.getTask(b).blockedFrom, null);
      assert.deepEqual(store.getTask(b).history.at(-1), { at: 60, by: 'astra', from: 'blocked', to: 'verification', reason: 'surprise S-0001 resolved: instrument interference; claim survives' });
      assertKernelError(() => store.resolveSurprise('S-0001', { outcome: 'again', by, now: 61 }), 'RTC_ERR_LEDGER_INPUT', 'already resolved');
      store.close();
    });

    test('a task stays blocked until every surprise naming it is resolved', () => {
      const { store } = freshStore(backend);
      const a = taskAt(store, 'a', ['ready']);
      store.recordSurprise({ observation: 'first', affects: [a], by, now: 10 });
      const second = store.recordSurprise({ observation: 'second', affects: [a], by, now: 11 });
      assert.deepEqual(second.blocked, [], 'already blocked: stays blocked, still remembers ready');
      assert.equal(store.getTask(a).blockedFrom, 'ready');
      assert.deepEqual(store.resolveSurprise('S-0001', { outcome: 'qualified', by, now: 12 }).unblocked, []);
      assertKernelError(() => store.moveTask(a, 'ready', { by, now: 13 }), 'RTC_ERR_LEDGER_BLOCKED', 'S-0002');
      assert.deepEqual(store.resolveSurprise('S-0002', { outcome: 'overturned; revised plan recorded', by, now: 14 }).unblocked, [a]);
      assert.equal(store.getTask(a).state, 'ready');
      assert.deepEqual(store.listSurprises({ state: 'open' }), []);
      assert.equal(store.listSurprises().length, 2);
      store.close();
    });

    test('a block placed by hand outlives a surprise; it is lifted by hand once no surprise is open', () => {
      const { store } = freshStore(backend);
      const a = taskAt(store, 'a', ['ready', 'implementing']);
      store.moveTask(a, 'blocked', { by: 'lead', now: 5, reason: 'waiting for the guest' });
      store.recordSurprise({ observation: 'odd', affects: [a], by, now: 6 });
      assertKernelError(() => store.moveTask(a, 'implementing', { by, now: 7 }), 'RTC_ERR_LEDGER_BLOCKED');
      assert.deepEqual(store.resolveSurprise('S-0001', { outcome: 'fine', by, now: 8 }).unblocked, []);
      assert.equal(store.getTask(a).state, 'blocked');
      assert.equal(store.moveTask(a, 'implementing', { by: 'lead', now: 9 }).state, 'implementing');
      store.close();
    });

    test('a surprise naming an unknown or accepted task is refused whole', () => {
      const { store } = freshStore(backend);
      const a = taskAt(store, 'a', ['ready']);
      const done = taskAt(store, 'done', ['ready', 'implementing', 'verification', 'integration', 'accepted']);
      assertKernelError(() => store.recordSurprise({ observation: 'x', affects: [a, 'T-0777'], by, now: 1 }), 'RTC_ERR_LEDGER_NOT_FOUND', 'T-0777');
      assertKernelError(() => store.recordSurprise({ observation: 'x', affects: [a, done], by, now: 1 }), 'RTC_ERR_LEDGER_TRANSITION', done, 'final');
      assertKernelError(() => store.recordSurprise({ observation: ' ', affects: [a], by, now: 1 }), 'RTC_ERR_LEDGER_INPUT', 'observation');
      assertKernelError(() => store.resolveSurprise('S-0009', { outcome: 'x', by, now: 1 }), 'RTC_ERR_LEDGER_NOT_FOUND', 'S-0009');
      assert.equal(store.getTask(a).state, 'ready', 'nothing was blocked by the refused surprises');
      assert.deepEqual(store.listSurprises(), []);
      // The refused records did not use up ids.
      assert.equal(store.recordSurprise({ observation: 'noted, affects nothing', by, now: 2 }).surprise.id, 'S-0001');
      store.close();
    });
  });
}
