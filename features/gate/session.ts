/**
 * What one gate run holds while its checks run: the profile, the folders of the evidence
 * package, the snapshot every check reads, the real Deno (if any), the bundles the build
 * binding made (only those may be run), and the sandbox runner with its audit sink.
 * Check plugins never see this object: they reach it only through the `gate.*` bindings
 * their profile grants them (bindings.ts).
 */
import path from 'node:path';
import type { AuditEvent } from '../../kernel/broker/op.ts';
import type { BuiltEntry } from '../../kernel/contracts/gate-check.ts';
import { createDraftTestRunner, type DraftTestRunner } from './draft-tests.ts';
import type { LoadedGateProfile } from './profiles.ts';
import type { Snapshot } from './snapshot.ts';

/** Audit events kept per run; a draft looping over denied calls cannot flood the evidence. */
export const MAX_AUDIT_EVENTS_PER_RUN = 500;

export interface GateDirs {
  out: string;
  /** `<out>/source`, and the copy of the draft inside it (`<out>/source/<folder>`) */
  source: string;
  draft: string;
  /** the fresh bundle cache: nothing built before this run is used */
  build: string;
  scratch: string;
  checks: string;
}

export class GateSession {
  readonly gate: LoadedGateProfile;
  /** the draft folder as given (absolute, resolved) and its folder name */
  readonly target: string;
  readonly name: string;
  readonly dirs: GateDirs;
  /** the real Deno for reference runs, or null when this host has none */
  readonly deno: string | null;
  snapshot?: Snapshot;
  /** what the build binding made, by entry (relative to the draft) */
  readonly built = new Map<string, BuiltEntry>();

  #runner: DraftTestRunner | undefined;
  #sink: ((event: AuditEvent) => void) | undefined;

  constructor(gate: LoadedGateProfile, target: string, out: string, deno: string | null) {
    this.gate = gate;
    this.target = target;
    this.name = path.basename(target);
    this.deno = deno;
    const source = path.join(out, 'source');
    this.dirs = { out, source, draft: path.join(source, this.name), build: path.join(out, 'build'), scratch: path.join(out, 'scratch'), checks: path.join(out, 'checks') };
  }

  /** The kernel's test runner for the draft's tests, made on first use with its cache in this package's build folder. */
  async runner(): Promise<DraftTestRunner> {
    this.#runner ??= await createDraftTestRunner(this.dirs.build, (event) => this.#sink?.(event));
    return this.#runner;
  }

  /** Runs `fn` with every capability decision of the draft's code sent to `sink` (runs are one at a time). */
  async withAudit<T>(sink: (event: AuditEvent) => void, fn: () => Promise<T>): Promise<T> {
    this.#sink = sink;
    try {
      return await fn();
    } finally {
      this.#sink = undefined;
    }
  }

  async close(): Promise<void> {
    await this.#runner?.close();
    this.#runner = undefined;
  }
}
