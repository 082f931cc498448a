/**
 * State that features above persistence keep in a persona's backend, beside the kernel's
 * events, memory and proposals: the task ledger (features/ledger/backend-part.ts). Persistence
 * names none of them. Whoever needs them hands them in: the composition root gives them to the
 * `persistence` commands (cli/commands.ts), and the science-loop composition opens its backends
 * through `providerWith(parts)` (provider.ts). So this feature imports no feature above it, and
 * a backend opened for `status` builds no ledger isolate.
 */
import type { PersonaBackend } from './backend.ts';

export interface BackendPart<Report = unknown> {
  /** the part's name: its key in `persistence export --json`, and in "not empty (...)" */
  readonly name: string;
  /** builds what synchronous use of the part needs, once per process (the ledger plugin's isolate) */
  prepare(): Promise<void>;
  /** whether `to` already holds this part's state (an export goes only into an empty backend) */
  occupied(to: PersonaBackend, samePersona: boolean): boolean;
  /**
   * Reads `from`'s state of this part and checks it before anything is written (a refusal here
   * writes nothing); the answer writes it into `to` once the kernel's parts are copied, checks
   * that it reads back the same, and reports.
   */
  exportFrom(from: PersonaBackend, to: PersonaBackend, samePersona: boolean): Promise<() => Report>;
  /** the report as one line of `persistence export`'s text output */
  describe(report: Report): string;
}

/** Prepares every part (each prepare is idempotent and cheap after the first). */
export async function prepareParts(parts: readonly BackendPart[]): Promise<void> {
  await Promise.all(parts.map((p) => p.prepare()));
}
