/**
 * Resource leases on both backends: acquire, renew, release; another owner is refused while
 * the lease runs, and still refused after it expires until the old owner is reconciled as
 * gone. Time is the caller's `now`, so expiry is tested without waiting.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKENDS, assertKernelError, freshStore } from './helpers.ts';

for (const backend of BACKENDS) {
  describe(`leases on ${backend}`, () => {
    test('acquire, renew and release by the owner', () => {
      const { store } = freshStore(backend);
      const lease = store.acquireLease('vm/guest-1', 'worker-a', 1_000, 10_000);
      assert.deepEqual(lease, { resource: 'vm/guest-1', owner: 'worker-a', acquiredAt: 10_000, renewedAt: 10_000, ttlMs: 1_000, expiresAt: 11_000 });
      const renewed = store.renewLease('vm/guest-1', 'worker-a', 5_000, 10_500);
      assert.equal(renewed.expiresAt, 15_500);
      assert.equal(renewed.acquiredAt, 10_000);
      assert.deepEqual(store.getLease('vm/guest-1'), renewed);
      store.releaseLease('vm/guest-1', 'worker-a', 12_000);
      assert.equal(store.getLease('vm/guest-1'), undefined);
      // Freed by release: anyone may take it now.
      assert.equal(store.acquireLease('vm/guest-1', 'worker-b', 1_000, 12_001).owner, 'worker-b');
      assert.deepEqual(
        store.leaseEvents('vm/guest-1').map((e) => `${e.event}:${e.owner}@${e.at}`),
        ['acquired:worker-a@10000', 'renewed:worker-a@10500', 'released:worker-a@12000', 'acquired:worker-b@12001'],
      );
      store.close();
    });

    test('the same owner acquiring again renews its lease', () => {
      const { store } = freshStore(backend);
      store.acquireLease('ghidra', 'worker-a', 1_000, 0);
      const again = store.acquireLease('ghidra', 'worker-a', 2_000, 500);
      assert.deepEqual([again.acquiredAt, again.expiresAt], [0, 2_500]);
      assert.deepEqual(store.leaseEvents().map((e) => e.event), ['acquired', 'renewed']);
      store.close();
    });

    test('another owner is refused while the lease runs', () => {
      const { store } = freshStore(backend);
      store.acquireLease('build-host', 'worker-a', 1_000, 0);
      assertKernelError(() => store.acquireLease('build-host', 'worker-b', 1_000, 999), 'RTC_ERR_LEDGER_LEASE_HELD', 'worker-a', '1000');
      assertKernelError(() => store.renewLease('build-host', 'worker-b', 1_000, 10), 'RTC_ERR_LEDGER_LEASE_NOT_OWNER', 'worker-a');
      assertKernelError(() => store.releaseLease('build-host', 'worker-b', 10), 'RTC_ERR_LEDGER_LEASE_NOT_OWNER', 'worker-a');
      assert.equal(store.getLease('build-host')?.owner, 'worker-a');
      store.close();
    });

    test('an expired lease is not free until its owner is reconciled as gone', () => {
      const { store } = freshStore(backend);
      store.acquireLease('vm/guest-2', 'worker-a', 1_000, 0);
      // Exactly at expiry and long after: still refused, with a message that says to reconcile.
      for (const now of [1_000, 1_000_000]) {
        assertKernelError(() => store.acquireLease('vm/guest-2', 'worker-b', 1_000, now), 'RTC_ERR_LEDGER_LEASE_STALE', 'expired at 1000', 'reconcile first', 'worker-a');
      }
      // Finding the owner alive keeps the lease.
      const alive = store.reconcileLease('vm/guest-2', { ownerGone: false, by: 'lead', now: 2_000, reason: 'pid 42 still running' });
      assert.equal(alive.released, false);
      assertKernelError(() => store.acquireLease('vm/guest-2', 'worker-b', 1_000, 2_001), 'RTC_ERR_LEDGER_LEASE_STALE');
      // The old owner may still renew its own expired lease; nobody took it meanwhile.
      assert.equal(store.renewLease('vm/guest-2', 'worker-a', 1_000, 3_000).expiresAt, 4_000);
      store.releaseLease('vm/guest-2', 'worker-a', 3_001);
      store.acquireLease('vm/guest-2', 'worker-a', 1_000, 5_000);
      const gone = store.reconcileLease('vm/guest-2', { ownerGone: true, by: 'lead', now: 7_000, reason: 'no such process' });
      assert.deepEqual([gone.released, gone.lease.owner], [true, 'worker-a']);
      assert.equal(store.acquireLease('vm/guest-2', 'worker-b', 1_000, 7_001).owner, 'worker-b');
      const events = store.leaseEvents('vm/guest-2');
      assert.deepEqual(events.at(-2), { resource: 'vm/guest-2', owner: 'worker-a', event: 'reconciled-gone', at: 7_000, by: 'lead', reason: 'no such process' });
      assert.deepEqual(events[1], { resource: 'vm/guest-2', owner: 'worker-a', event: 'reconciled-alive', at: 2_000, by: 'lead', reason: 'pid 42 still running' });
      store.close();
    });

    test('bad lease arguments are refused before anything is written', () => {
      const { store } = freshStore(backend);
      assertKernelError(() => store.acquireLease('', 'a', 1, 0), 'RTC_ERR_LEDGER_INPUT', 'resource');
      assertKernelError(() => store.acquireLease('r', 'a', 0, 0), 'RTC_ERR_LEDGER_INPUT', 'ttlMs');
      assertKernelError(() => store.acquireLease('r', 'a', 1.5, 0), 'RTC_ERR_LEDGER_INPUT', 'ttlMs');
      assertKernelError(() => store.reconcileLease('nothing-here', { ownerGone: true, by: 'lead', now: 0 }), 'RTC_ERR_LEDGER_NOT_FOUND', 'nothing-here');
      assertKernelError(() => store.releaseLease('nothing-here', 'a', 0), 'RTC_ERR_LEDGER_NOT_FOUND');
      assert.deepEqual(store.listLeases(), []);
      assert.deepEqual(store.leaseEvents(), []);
      store.close();
    });
  });
}
