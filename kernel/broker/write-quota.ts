/**
 * A run's write quota: how many bytes and how many files and folders a run may add to the
 * disk, enforced while it writes rather than measured afterwards (a gate test once wrote
 * 300 MB within 1 s of CPU against a 1 MiB cap, and the rejected package kept it).
 *
 * The account is net: a write charges what it adds (a new file's bytes, the growth of an
 * existing one, one entry per file or folder created) *before* the bytes reach the disk, and
 * the write that would pass the quota is refused with ENOSPC, as a full disk would answer;
 * a removal gives back what the run had charged (never more: deleting files that were
 * there before the run earns no room). So what a run holds on disk never passes the quota.
 *
 * It lives in the run's scope (run-scope.ts) for the whole run. The broker holds every op
 * to it structurally: while a quota is set, an op that needs `write` or `run` permission
 * runs only if it declares `quota: true` (it charges the account itself); any other is
 * refused. A new file op added without accounting therefore fails closed, and a subprocess,
 * which writes with its own system calls, cannot be started at all.
 */
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Refusal } from './refusal.ts';

export interface WriteQuotaLimits {
  /** bytes the run may add to the disk */
  maxBytes: number;
  /** files and folders the run may create */
  maxEntries: number;
}

export interface WriteQuotaUsage {
  bytes: number;
  entries: number;
  /** writes refused for the quota */
  refused: number;
}

/** Entries walked to measure a removal; past it the rest gives nothing back (never too much). */
const MAX_REMOVAL_WALK = 100_000;

export class WriteQuota {
  readonly limits: WriteQuotaLimits;
  #bytes = 0;
  #entries = 0;
  #refused = 0;

  constructor(limits: WriteQuotaLimits) {
    this.limits = limits;
  }

  get usage(): WriteQuotaUsage {
    return { bytes: this.#bytes, entries: this.#entries, refused: this.#refused };
  }

  /**
   * Charges `bytes` and `entries` (either may be 0) before the write that adds them, or
   * throws an audited ENOSPC refusal and charges nothing. Returns the refund for a write
   * that then fails.
   */
  charge(bytes: number, entries: number, op: string, target: string, shown: string): () => void {
    const addBytes = Math.max(0, bytes);
    const addEntries = Math.max(0, entries);
    const overBytes = this.#bytes + addBytes > this.limits.maxBytes;
    const overEntries = this.#entries + addEntries > this.limits.maxEntries;
    if (overBytes || overEntries) {
      this.#refused += 1;
      const what = overBytes
        ? `it would bring what the run wrote to ${this.#bytes + addBytes} bytes, over its write quota of ${this.limits.maxBytes}`
        : `it would bring the files and folders the run created to ${this.#entries + addEntries}, over its quota of ${this.limits.maxEntries}`;
      throw new Refusal('write', target, `No space left on device (os error 28): ${what}: ${op} '${shown}'`, 'write-quota', { denoClass: 'Error', osCode: 'ENOSPC' });
    }
    this.#bytes += addBytes;
    this.#entries += addEntries;
    // A shrinking rewrite gives back what it frees.
    if (bytes < 0) this.release(-bytes, 0);
    let refunded = false;
    return () => {
      if (refunded) return;
      refunded = true;
      this.release(addBytes, addEntries);
    };
  }

  /** Gives back bytes and entries the run no longer holds, down to zero at most. */
  release(bytes: number, entries: number): void {
    this.#bytes = Math.max(0, this.#bytes - bytes);
    this.#entries = Math.max(0, this.#entries - entries);
  }

  /** What removing `target` (not following links) will free, measured before it is removed. */
  static measure(target: string): { bytes: number; entries: number } {
    let bytes = 0;
    let entries = 0;
    let walked = 0;
    const visit = (p: string): void => {
      if (walked++ > MAX_REMOVAL_WALK) return;
      let info;
      try {
        info = lstatSync(p);
      } catch {
        return;
      }
      entries += 1;
      if (info.isFile()) bytes += info.size;
      else if (info.isDirectory()) {
        let names: string[];
        try {
          names = readdirSync(p);
        } catch {
          return;
        }
        for (const name of names) visit(path.join(p, name));
      }
    };
    visit(target);
    return { bytes, entries };
  }
}
