/**
 * Every (from, to) pair of task states, generated from the transition table: the legal ones
 * move the task and append history, the illegal ones are refused with the current state and
 * the legal targets named, and leave the task as it was. Runs on both backends.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BLOCKABLE_STATES, TASK_STATES, TRANSITIONS, legalTargets, type LedgerStore, type TaskState } from '../index.ts';
import { BACKENDS, assertKernelError, by, freshStore } from './helpers.ts';

/** The shortest list of moves from `proposed` to `target` over the table's edges. */
function pathTo(target: TaskState): TaskState[] {
  const queue: TaskState[][] = [[]];
  const seen = new Set<TaskState>(['proposed']);
  while (queue.length > 0) {
    const route = queue.shift()!;
    const at = route.at(-1) ?? 'proposed';
    if (at === target) return route;
    for (const next of TRANSITIONS[at]) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push([...route, next]);
      }
    }
  }
  throw new Error(`${target} is unreachable from proposed`);
}

function taskIn(store: LedgerStore, state: TaskState, blockedFrom?: TaskState): string {
  let now = 1_000;
  const task = store.addTask({ title: `a task headed for ${state}`, by, now });
  for (const step of pathTo(blockedFrom ?? state)) store.moveTask(task.id, step, { by, now: ++now, reason: 'set-up' });
  if (blockedFrom !== undefined) store.moveTask(task.id, 'blocked', { by, now: ++now, reason: 'set-up block' });
  return task.id;
}

function expectMove(store: LedgerStore, id: string, from: TaskState, to: TaskState, legal: boolean): void {
  const before = store.getTask(id);
  assert.equal(before.state, from);
  if (legal) {
    const moved = store.moveTask(id, to, { by: 'mover', now: 9_999, reason: `to ${to}` });
    assert.equal(moved.state, to);
    assert.equal(moved.history.length, before.history.length + 1);
    assert.deepEqual(moved.history.at(-1), { at: 9_999, by: 'mover', from, to, reason: `to ${to}` });
    assert.equal(moved.blockedFrom, to === 'blocked' ? from : null);
    assert.deepEqual(store.getTask(id), moved, 'the move is what a fresh read sees');
  } else {
    const targets = legalTargets(from, before.blockedFrom);
    assertKernelError(() => store.moveTask(id, to, { by: 'mover', now: 9_999 }), 'RTC_ERR_LEDGER_TRANSITION', `"${from}"`, `"${to}"`, ...targets);
    assert.deepEqual(store.getTask(id), before, 'a refused move changes nothing');
  }
}

test('the table itself: the spec lifecycle, blocked from any work in flight, revision from verification and integration', () => {
  assert.deepEqual(pathTo('accepted'), ['ready', 'implementing', 'verification', 'integration', 'accepted']);
  assert.deepEqual([...BLOCKABLE_STATES], ['proposed', 'ready', 'implementing', 'verification', 'integration', 'revision']);
  assert.deepEqual(TRANSITIONS.accepted, []);
  assert.ok(TRANSITIONS.verification.includes('revision') && TRANSITIONS.integration.includes('revision'));
  assert.deepEqual(TRANSITIONS.revision, ['implementing', 'blocked']);
  assert.deepEqual(legalTargets('blocked', 'verification'), ['verification']);
});

for (const backend of BACKENDS) {
  describe(`task transitions on ${backend}`, () => {
    let store: LedgerStore;
    before(() => {
      store = freshStore(backend).store;
    });
    after(() => store.close());

    for (const from of TASK_STATES.filter((s) => s !== 'blocked')) {
      for (const to of TASK_STATES) {
        const legal = TRANSITIONS[from].includes(to);
        test(`${from} → ${to} is ${legal ? 'legal' : 'refused'}`, () => {
          expectMove(store, taskIn(store, from), from, to, legal);
        });
      }
    }

    for (const blockedFrom of BLOCKABLE_STATES) {
      for (const to of TASK_STATES) {
        const legal = to === blockedFrom;
        test(`blocked (from ${blockedFrom}) → ${to} is ${legal ? 'legal' : 'refused'}`, () => {
          expectMove(store, taskIn(store, 'blocked', blockedFrom), 'blocked', to, legal);
        });
      }
    }

    test('ids are a deterministic sequence and history records who, from, to and why', () => {
      const { store: own } = freshStore(backend);
      const a = own.addTask({ title: 'first', by: 'lead', now: 5 });
      const b = own.addTask({ title: 'second', description: 'more', by: 'lead', now: 6 });
      assert.equal(a.id, 'T-0001');
      assert.equal(b.id, 'T-0002');
      assert.deepEqual(a.history, [{ at: 5, by: 'lead', from: null, to: 'proposed', reason: 'created' }]);
      own.moveTask('T-0002', 'ready', { by: 'lead', now: 7, reason: 'contract approved' });
      assert.deepEqual(
        own.listTasks({ state: 'ready' }).map((t) => t.id),
        ['T-0002'],
      );
      assertKernelError(() => own.moveTask('T-0099', 'ready', { by, now: 8 }), 'RTC_ERR_LEDGER_NOT_FOUND', 'T-0099');
      assertKernelError(() => own.addTask({ title: ' ', by, now: 1 }), 'RTC_ERR_LEDGER_INPUT', 'title');
      assertKernelError(() => own.addTask({ title: 'x', by, now: -1 }), 'RTC_ERR_LEDGER_INPUT', 'now');
      assertKernelError(() => own.addTask({ title: 'x', by, now: 1.5 }), 'RTC_ERR_LEDGER_INPUT', 'now');
      assert.deepEqual(own.nextStates('T-0002'), ['implementing', 'blocked']);
      own.close();
    });
  });
}
