/**
 * The operator trust list as a running kernel sees it: read at start (a broken list stops the
 * start, as before), then looked at again at every cycle boundary, so `runtimectl operator
 * init` or `operator trust` on a machine whose kernel is running takes effect at the next
 * boundary instead of at the next restart.
 *
 * A look costs one stat of operators.json (its inode, size, mtime and ctime, in nanoseconds).
 * Only when that changed is the file read; only when its bytes changed is it parsed, and the
 * version goes up. A list that no longer parses (a hand edit gone wrong, a key that is not
 * Ed25519) is not quietly replaced by the last good one, which may hold the very key being
 * revoked: the kernel then trusts nobody, every accepted proposal is held with the reason,
 * and the change is reported (trust.error) until the file is fixed. A list removed is an
 * empty list. The operator folder must stay outside the state directory, then as at start.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { errorLine } from '../../kernel/errors.ts';
import { readManifestSource } from '../../kernel/manifest/load.ts';
import { operatorHome, parseOperatorTrust, refuseInsideState, TRUST_FILE, trustFile, type OperatorTrust } from './operators.ts';

/** What a look at the trust list found. */
export interface TrustNow {
  trust: OperatorTrust;
  /** goes up by one each time the list's content (or its readability) changed since the start */
  version: number;
  /** sha256 of the file as last read (null: no file) */
  digest: string | null;
}

/** How a trust list change is told in a persona's event log: names and fingerprints only, never a host path. */
export function trustChangePayload(now: TrustNow): Record<string, unknown> {
  return {
    file: TRUST_FILE,
    version: now.version,
    digest: now.digest,
    operators: now.trust.operators.map((o) => ({ name: o.name, fingerprint: o.fingerprint })),
    ...(now.trust.error === undefined ? {} : { error: now.trust.error }),
  };
}

export class OperatorTrustSource {
  readonly file: string;
  readonly #home: string;
  readonly #stateDir: string;
  #stamp: string;
  #now: TrustNow;

  /** Reads the list now; throws (one line) on a list that cannot be read, as a start should. */
  constructor(env: Readonly<Record<string, string | undefined>>, stateDir: string) {
    this.file = trustFile(env);
    this.#home = operatorHome(env);
    this.#stateDir = stateDir;
    this.#stamp = this.#stampNow();
    const read = this.#read();
    if (read.trust.error !== undefined) throw read.failure!;
    this.#now = { trust: read.trust, digest: read.digest, version: 0 };
  }

  /** The list as it is now: re-read when the file changed since the last look. */
  current(): TrustNow {
    const stamp = this.#stampNow();
    if (stamp === this.#stamp) return this.#now;
    this.#stamp = stamp;
    const read = this.#read();
    if (read.digest === this.#now.digest && read.trust.error === this.#now.trust.error) return this.#now;
    this.#now = { trust: read.trust, digest: read.digest, version: this.#now.version + 1 };
    return this.#now;
  }

  /** The reason as events and alerts carry it: the list named by its file name, not its host path. */
  #shown(error: unknown): string {
    return errorLine(error).split(this.file).join(TRUST_FILE).split(this.#home).join('<operator folder>');
  }

  #stampNow(): string {
    try {
      const s = statSync(this.file, { bigint: true });
      return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
    } catch (error) {
      return `absent:${(error as NodeJS.ErrnoException).code ?? '?'}`;
    }
  }

  #read(): { trust: OperatorTrust; digest: string | null; failure?: unknown } {
    let bytes: Buffer;
    let text: string;
    try {
      refuseInsideState(this.#home, this.#stateDir);
      ({ bytes, text } = readManifestSource(this.file, this.file));
    } catch (error) {
      if (isMissing(this.file)) return { trust: { source: this.file, operators: [] }, digest: null };
      return { trust: { source: this.file, operators: [], error: this.#shown(error) }, digest: null, failure: error };
    }
    const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    try {
      return { trust: parseOperatorTrust(text, this.file), digest };
    } catch (error) {
      return { trust: { source: this.file, operators: [], error: this.#shown(error) }, digest, failure: error };
    }
  }
}

function isMissing(file: string): boolean {
  try {
    statSync(file);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
