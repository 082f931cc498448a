/**
 * The persistence feature's side of the backend contract (kernel/contracts/persistence.ts has
 * the parts the kernel itself uses): every backend is a plugin in an isolate
 * (isolated-backend.ts, whose BACKEND_EXPORTS are what a backend plugin exports), and the
 * features above may call its other exports for this persona. A backend also keeps state of
 * features above persistence (the task ledger's rows: its ledgerLoad / ledgerCommit exports);
 * it only says in which format (`ledgerFormat`), and features/ledger makes the ledger of it
 * (`ledgerOf`), so this feature imports none of them (parts.ts).
 */
import type { PersistenceBackend } from '../../kernel/contracts/persistence.ts';

/** A persona's backend as the features see it. */
export interface PersonaBackend extends PersistenceBackend {
  /** The format the backend keeps the persona's task ledger in, as its plugin's describe() names it (jsonl-fs, sqlite, postgres). */
  readonly ledgerFormat: string;
  /** Calls any export the manifest lists, with this persona's session token first. */
  callPlugin(name: string, ...args: unknown[]): Promise<unknown>;
  /** callPlugin for an export that answers synchronously (the ledger's rows). */
  callPluginSync(name: string, ...args: unknown[]): unknown;
  /** Lets go of the session's connections to one file of the persona folder (a ledger closed). */
  releaseFile(relative: string): void;
}
