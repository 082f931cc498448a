/**
 * The shape of one broker operation. Each op names the permission it needs for given
 * arguments (checked by the broker before `run` is ever called) and does its effect.
 * Ops live one file per area, registered as extensions (extension.ts: the persona's bindings
 * in features/plugin-host/binding-ops.ts, on the kernel's check in bindings.ts; Deno's ops in
 * sandboxes/deno/ops, handed in by the composition), Deno's layout: declaration, check,
 * implementation.
 */
import { randomBytes } from 'node:crypto';
import type { PermissionName } from '../permissions/descriptors.ts';
import type { PermissionGate } from '../permissions/gate.ts';
import type { AuditPermission, RefusalReason } from './refusal.ts';
import type { OpTicket, RunScope } from './run-scope.ts';
import type { Tape } from './tape.ts';
import type { Attempt, AttemptsOf } from './attempts.ts';
import type { PluginBindings } from './bindings.ts';
import type { ChildTrackerLike, OsSandboxView } from '../sandbox.ts';

/**
 * The OS sandbox every `run` child gets (sandboxes/subprocess/os-sandbox): its view is
 * planned from this context's grant; these are the parts the grant does not say.
 */
export interface OsSandboxSettings extends OsSandboxView {
  /** 'required' (the default): bubblewrap, or a refusal; 'off': the profile opted out, logged every cycle */
  mode: 'required' | 'off';
  /** hears of every child's start and end; may refuse a start or stop a child (the kernel's registry) */
  tracker?: ChildTrackerLike;
  /** the kernel's environment, where bubblewrap is looked for (RUNTIMECTL_BWRAP, PATH); default: this process's */
  hostEnv?: Readonly<Record<string, string | undefined>>;
}

/**
 * What the composition hands a storage plugin's broker (persistence backends and the ledger
 * only): the storage bindings its manifest declares, and the host of its open sessions that the
 * storage binding ops answer from. Those ops and the host are the persistence feature's
 * (features/persistence/storage, an extension handed in); the kernel reads only `declared`
 * (attempts.ts: whether a storage binding is granted), so the host is opaque here and the ops
 * check it is theirs.
 */
export interface StorageGrant {
  readonly host: object;
  /** the storage bindings the manifest declares (and the host therefore serves) */
  readonly declared: readonly string[];
}

export interface AuditEvent {
  type: 'capability';
  subject: string;
  op: string;
  /** a Deno permission kind, `all` (special files), or `binding` for a kernel binding (value: the binding's name) */
  permission: AuditPermission;
  value: string | null;
  decision: 'granted' | 'denied';
  /** the rule beyond the plain grant that made this check (a special file, a symlink, a redirect hop...) */
  reason?: RefusalReason;
}

/** Files of the kernel's own that no sandboxed op reaches, whatever the grant (even `-A`). */
export interface KernelFiles {
  /** folders nothing may be written or created under (the build cache) */
  noWrite: readonly string[];
  /** files nothing may open, read or stat (the cache's integrity key), by path and by inode */
  secret: readonly { path: string; dev: number; ino: number }[];
}

export interface BrokerContext {
  /** who is asking: a plugin id or `script:<file>` */
  subject: string;
  gate: PermissionGate;
  /** Deno.cwd() of the sandboxed code, and the base for its relative paths */
  cwd: string;
  /** the environment Deno.env reads (a private copy: set/delete change only this) */
  env: Record<string, string>;
  /** refuse paths whose real location leaves the grant */
  strictSymlinks: boolean;
  /** subprocess limits for `run` ops */
  subprocess: { wallMs: number; outputBytes: number };
  /** the OS sandbox of `run` children (absent: required, hiding nothing beyond what the grant leaves out) */
  os?: OsSandboxSettings;
  /** bytes a fetch response body may have */
  maxResponseBytes: number;
  /** how long a fetch may wait for headers, or between two chunks of its body */
  netTimeoutMs: number;
  /** the async ops of the current run or call: counted, capped, aborted when it ends */
  scope: RunScope;
  /** what of the kernel's own no op reaches */
  kernelFiles?: KernelFiles;
  audit(event: AuditEvent): void;
  /** when set, every answer is recorded on it, or (replay) taken from it instead of the world */
  tape?: Tape;
  /**
   * where clock readings and random bytes come from (default: the host's clock and CSPRNG);
   * a kernel that pins its clock (tests, a deterministic re-run) pins the plugins' clock too
   */
  sources?: WorldSources;
  /** under `sandbox test`: the run's own grant, which each test's `permissions` narrow (sandboxes/deno/ops/test-permissions.ts) */
  testGrant?: { base: PermissionGate };
  /** `Deno.mainModule`: the URL of the entry module (a script's file, a plugin's entry) */
  mainModule?: string;
  /** `Deno.execPath()`: a program that runs `eval` and `run` as deno does (features/sandbox-run/runner/exec-path.ts) */
  execPath?: string;
  /** kernel bindings this plugin may reach (declared by its manifest ∩ granted by its persona); see bindings.ts */
  bindings?: PluginBindings;
  /** storage bindings (persistence backends and the ledger only): see StorageGrant */
  storage?: StorageGrant;
  /**
   * applied to the bytes of every file write before they reach the disk (a persona's plugins:
   * its secret values scrubbed from what lands in its folder); the recorded effect keeps the
   * arguments as the plugin gave them
   */
  scrubWrite?: (file: string, data: Buffer) => Buffer;
}

export interface WorldSources {
  /** wall clock, ms since the epoch */
  now(): number;
  /** monotonic ms since the kernel started */
  monotonic(): number;
  randomBytes(length: number): Buffer;
}

const origin = performance.now();

/** The host's own clock and CSPRNG: what an op reads unless its kernel pins them (`BrokerContext.sources`). */
export const HOST_SOURCES: WorldSources = {
  now: () => Date.now(),
  monotonic: () => performance.now() - origin,
  randomBytes: (length) => randomBytes(length),
};

export interface PermissionNeed {
  kind: PermissionName;
  /** the value checked; undefined checks the whole kind (`Deno.env.toObject`) */
  value?: string;
  /** the value as the script wrote it, for the message (Deno keeps relative paths relative) */
  display?: string;
  /** other names of the same thing (a command's canonical path): a deny of any of them refuses */
  aliases?: string[];
  /** Deno's own wording for this refusal, where it is not the usual `Requires ... access` */
  message?: string;
}

/**
 * The checks an op makes while it runs (a path's real location, a redirect hop), handed to
 * it by the broker for one call. A passing check is audited as granted here; a failing one
 * throws a Refusal, which the broker audits where the call ends. Ops never call `audit`.
 */
export interface OpCall {
  readonly op: string;
  /** checks `kind` for `value` against the live grant (Deno's message names `display`) */
  require(kind: PermissionName, value: string | undefined, display?: string, reason?: RefusalReason, aliases?: readonly string[]): void;
  /** special files: passes only under Deno's `--allow-all`; `display` is the path named */
  requireAll(display: string, reason?: RefusalReason): void;
  /** refuses outright (a rule no grant lifts) */
  refuse(permission: AuditPermission, value: string | null, message: string, reason: RefusalReason): never;
  /** audits a check the op made itself and passed (a binding) */
  granted(permission: AuditPermission, value: string | null, reason?: RefusalReason): void;
  /** audits a refusal the op answers without throwing (a permission request answered "denied") */
  denied(permission: AuditPermission, value: string | null, reason: RefusalReason): void;
  /**
   * audits an attempt the op answers before checking it (a redirect hop to a bad port):
   * granted when the live grant covers it, else denied; `reason` says why it was not checked
   */
  attempted(attempt: Attempt, reason: RefusalReason): void;
  /** a `scoped` op's place in its run (slot, byte account, abort signal, connection pool) */
  readonly ticket?: OpTicket;
}

export interface OpDefinition<A = any, R = unknown> {
  name: string;
  mode: 'sync' | 'async';
  /** checks the raw arguments and returns them typed; throws TypeError for bad shapes */
  parse(raw: unknown, ctx: BrokerContext): A;
  /** the permissions this call needs, checked in order before `run` (in replay too) */
  needs(args: A, ctx: BrokerContext): PermissionNeed[];
  /**
   * what the call attempts, from its raw arguments (attempts.ts): an op that reaches outside
   * the isolate declares it, so a call answered before its check (bad arguments, not found,
   * a quota) still leaves its attempt in the audit; ops on a resource already granted
   * (a file's rid, a fetch body) and pure ones leave it out
   */
  attempts?: AttemptsOf;
  /**
   * the op holds resources of the run while it runs (a connection, a subprocess, buffered
   * bytes): the broker waits for a slot in the run's scope first, hands the op its ticket,
   * and gives the slot back once the answer is delivered
   */
  scoped?: boolean;
  /**
   * the op charges the run's write quota (write-quota.ts) for what it adds on disk; while a
   * quota is set, an op needing `write` or `run` that does not say so is refused
   */
  quota?: boolean;
  /** checks beyond `needs` that depend on the arguments as a whole (a command's environment); run in replay too */
  admit?(args: A, ctx: BrokerContext, call: OpCall): void;
  run(args: A, ctx: BrokerContext, call: OpCall): R | Promise<R>;
}

export function defineOp<A, R>(op: OpDefinition<A, R>): OpDefinition<A, R> {
  return op;
}
