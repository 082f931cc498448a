/**
 * Host-side resources a sandboxed script holds by number, as Deno's resource table does:
 * open files (`Deno.open`), spawned children (`Deno.Command(...).spawn()`), streaming fetch
 * bodies, crypto keys. The isolate only ever sees the number (`rid`); the object stays on
 * the host. Each broker context has its own table, so one script can never name another's
 * resource, and closing the context (the end of a run, the disposal of a plugin instance)
 * closes everything still open in it: files, child process groups, sockets.
 */
import { DenoOpError } from './deno-error.ts';
import type { BrokerContext } from './op.ts';

export interface Resource {
  /** what it is, for errors and for `Deno.resources`-style listings: `file`, `child`, `fetchBody`, `cryptoKey` */
  readonly kind: string;
  close(): void;
}

export class ResourceTable {
  readonly #entries = new Map<number, Resource>();
  #next = 3; // 0-2 are stdin, stdout and stderr in Deno

  add(resource: Resource): number {
    const rid = this.#next++;
    this.#entries.set(rid, resource);
    return rid;
  }

  /** The resource `rid` names, of the expected kind, or Deno's `BadResource`. */
  get<T extends Resource>(rid: unknown, kind: string): T {
    const entry = typeof rid === 'number' ? this.#entries.get(rid) : undefined;
    if (!entry || entry.kind !== kind) throw new DenoOpError('BadResource', 'Bad resource ID');
    return entry as T;
  }

  has(rid: number): boolean {
    return this.#entries.has(rid);
  }

  /** Forgets and closes `rid`; closing twice is Deno's `BadResource`. */
  close(rid: unknown): void {
    const entry = typeof rid === 'number' ? this.#entries.get(rid) : undefined;
    if (!entry) throw new DenoOpError('BadResource', 'Bad resource ID');
    this.#entries.delete(rid as number);
    entry.close();
  }

  /** Forgets `rid` without closing it (the resource closed itself). */
  forget(rid: number): void {
    this.#entries.delete(rid);
  }

  get size(): number {
    return this.#entries.size;
  }

  closeAll(): void {
    for (const [rid, entry] of [...this.#entries]) {
      this.#entries.delete(rid);
      try {
        entry.close();
      } catch {
        // closing what is left at the end of a run: nothing to report it to
      }
    }
  }
}

const tables = new WeakMap<BrokerContext, ResourceTable>();

export function resourcesOf(ctx: BrokerContext): ResourceTable {
  let table = tables.get(ctx);
  if (!table) {
    table = new ResourceTable();
    tables.set(ctx, table);
  }
  return table;
}

/** Closes every resource a context still holds; the broker's close() calls this. */
export function closeResources(ctx: BrokerContext): void {
  tables.get(ctx)?.closeAll();
}
