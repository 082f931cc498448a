/**
 * What one gate run carries from check to check: the profile, the folders of the evidence
 * package, and what earlier checks found (the snapshot, the parsed manifests, the built
 * tests, the sandbox runs). Each check reads what it needs from here and says
 * `unavailable` when an earlier check left it nothing to work on.
 */
import path from 'node:path';
import type { AuditEvent } from '../../kernel/broker/op.ts';
import type { PluginManifest } from '../../kernel/manifest/plugin-manifest.ts';
import type { ScriptRunResult } from '../../kernel/run/script-run-types.ts';
import { createScriptRunner, type ScriptRunner } from '../../kernel/run/script-runner.ts';
import type { LoadedGateProfile } from './profiles.ts';
import type { Snapshot } from './snapshot.ts';

export type CheckStatus = 'passed' | 'failed' | 'unavailable';

export interface CheckOutcome {
  status: CheckStatus;
  /** one line: why it passed, failed or could not run */
  reason: string;
  /** the raw evidence, written to checks/<nn>-<name>.json */
  output: unknown;
  /** set when the gate itself broke while running the check: never tolerated as a limitation */
  internal?: boolean;
}

export interface BuiltEntry {
  /** path relative to the draft folder */
  entry: string;
  role: 'module' | 'test';
  /** sha256 of the bundle the sandbox runs, when the build succeeded */
  bundle?: { digest: string; size: number; inputs: Record<string, string> };
  error?: string;
}

/** One run of one test in the sandbox, with every capability decision it caused. */
export interface TestRun {
  test: string;
  pass: number;
  scratch: string;
  permissionFlags: string[];
  result: ScriptRunResult;
  audit: AuditEvent[];
  /** audit events past the recording cap, counted but not kept */
  auditDropped: number;
  deniedCount: number;
}

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

export class GateContext {
  readonly gate: LoadedGateProfile;
  /** the draft folder as given (absolute, resolved) and its folder name */
  readonly target: string;
  readonly name: string;
  readonly dirs: GateDirs;
  /** the real Deno for reference-runtime, or null when this host has none */
  readonly deno: string | null;

  snapshot?: Snapshot;
  skillName?: string;
  /** the parsed plugin.yaml; `pluginError` when it exists but does not validate */
  plugin?: PluginManifest;
  pluginError?: string;
  builds?: BuiltEntry[];
  /** tests that built, relative to the draft folder, in run order */
  runnableTests?: string[];
  /** runs by pass: passes[0] is the tests check, passes[1] the determinism check */
  passes: TestRun[][] = [];

  #runner: ScriptRunner | undefined;
  #sink: ((event: AuditEvent) => void) | undefined;

  constructor(gate: LoadedGateProfile, target: string, out: string, deno: string | null) {
    this.gate = gate;
    this.target = target;
    this.name = path.basename(target);
    this.deno = deno;
    const source = path.join(out, 'source');
    this.dirs = { out, source, draft: path.join(source, this.name), build: path.join(out, 'build'), scratch: path.join(out, 'scratch'), checks: path.join(out, 'checks') };
  }

  /** The sandbox runner, made on first use with its cache in this package's build folder. */
  async runner(): Promise<ScriptRunner> {
    this.#runner ??= await createScriptRunner({ cacheDir: this.dirs.build, poolSize: 1, audit: (event) => this.#sink?.(event) });
    return this.#runner;
  }

  /** Runs `fn` with every capability decision sent to `sink` (runs are one at a time). */
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
