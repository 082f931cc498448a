/** `fs.Dir` (what `opendir` answers): the entries read when it opened, handed out one by one. */
import type { Dirent } from './stats.ts';

export class Dir {
  readonly path: string;
  readonly #entries: Dirent[];
  #closed = false;

  constructor(path: string, entries: Dirent[]) {
    this.path = path;
    this.#entries = entries;
  }

  readSync(): Dirent | null {
    return this.#entries.shift() ?? null;
  }

  read(callback?: (err: Error | null, entry: Dirent | null) => void): Promise<Dirent | null> | void {
    const entry = this.readSync();
    if (callback) {
      setTimeout(() => callback(null, entry), 0);
      return;
    }
    return Promise.resolve(entry);
  }

  closeSync(): void {
    this.#closed = true;
  }

  close(callback?: (err: Error | null) => void): Promise<void> | void {
    this.closeSync();
    if (callback) {
      setTimeout(() => callback(null), 0);
      return;
    }
    return Promise.resolve();
  }

  async *entries(): AsyncGenerator<Dirent> {
    for (let e = this.readSync(); e !== null; e = this.readSync()) yield e;
    this.closeSync();
  }

  [Symbol.asyncIterator](): AsyncGenerator<Dirent> {
    return this.entries();
  }

  get closed(): boolean {
    return this.#closed;
  }
}

export function makeDir(path: string, entries: Dirent[]): Dir {
  return new Dir(path, entries);
}
