/**
 * How a file op other than writeFile/mkdir/remove charges the run's write quota
 * (kernel/broker/write-quota.ts): before the bytes or entries land, each charge kept so that an op that
 * then fails gives back everything it took. Without a quota every call here is a no-op, so
 * the ops read the same whether or not the run has one. Writes to /dev/null cost nothing.
 */
import type { Stats } from 'node:fs';
import type { BrokerContext } from '../../../kernel/broker/op.ts';
import { isDiscardingDevice } from './special-files.ts';
import { WriteQuota } from '../../../kernel/broker/write-quota.ts';

export class WriteCharge {
  readonly #ctx: BrokerContext;
  readonly #op: string;
  readonly #target: string;
  readonly #shown: string;
  readonly #refunds: (() => void)[] = [];

  /** `op` and `shown` name the write in a refusal's message (`copy 'b.txt'`), `target` in its audit. */
  constructor(ctx: BrokerContext, op: string, target: string, shown: string) {
    this.#ctx = ctx;
    this.#op = op;
    this.#target = target;
    this.#shown = shown;
  }

  /** Charges what the write adds (a negative byte count gives back what it frees), or throws the quota's ENOSPC refusal. */
  add(bytes: number, entries: number): void {
    const quota = this.#ctx.scope.writes;
    if (!quota || (bytes === 0 && entries === 0)) return;
    this.#refunds.push(quota.charge(bytes, entries, this.#op, this.#target, this.#shown));
  }

  /** The op failed: what it charged is given back. */
  refund(): void {
    for (const refund of this.#refunds.splice(0)) refund();
  }
}

/** Gives back what the run no longer holds (never below zero). */
export function releaseWrites(ctx: BrokerContext, bytes: number, entries: number): void {
  ctx.scope.writes?.release(bytes, entries);
}

/** What removing or replacing `target` frees, measured now (nothing without a quota, or when nothing is there). */
export function measureFreed(ctx: BrokerContext, target: string, stats: Stats | null | undefined): { bytes: number; entries: number } | null {
  if (!ctx.scope.writes || !stats) return null;
  return WriteQuota.measure(target);
}

/** A file the run's writes are charged for: anything but a device that discards what it is given. */
export function charged(stats: Stats | null | undefined): boolean {
  return !(stats && isDiscardingDevice(stats));
}
