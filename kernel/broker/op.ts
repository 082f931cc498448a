/**
 * The shape of one broker operation. Each op names the permission it needs for given
 * arguments (checked by the broker before `run` is ever called) and does its effect.
 * Ops live one file per area in `ops/`, listed in `ops/index.ts` (Deno's layout:
 * declaration, check, implementation).
 */
import type { PermissionName } from '../permissions/descriptors.ts';
import type { PermissionGate } from '../permissions/gate.ts';
import type { Tape } from './tape.ts';
import type { PluginBindings } from './ops/bindings.ts';
import type { StorageGrant } from '../persistence/binding-kit.ts';

export interface AuditEvent {
  type: 'capability';
  subject: string;
  op: string;
  /** a Deno permission kind, or `binding` for a kernel binding (value: the binding's name) */
  permission: PermissionName | 'binding';
  value: string | null;
  decision: 'granted' | 'denied';
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
  /** bytes a fetch response body may have */
  maxResponseBytes: number;
  audit(event: AuditEvent): void;
  /** when set, every answer is recorded on it, or (replay) taken from it instead of the world */
  tape?: Tape;
  /**
   * where clock readings and random bytes come from (default: the host's clock and CSPRNG);
   * a kernel that pins its clock (tests, a deterministic re-run) pins the plugins' clock too
   */
  sources?: WorldSources;
  /** kernel bindings this plugin may reach (declared by its manifest ∩ granted by its persona); see ops/bindings.ts */
  bindings?: PluginBindings;
  /** storage bindings (persistence backends and the ledger only); see kernel/persistence/binding-kit.ts */
  storage?: StorageGrant;
}

export interface WorldSources {
  /** wall clock, ms since the epoch */
  now(): number;
  /** monotonic ms since the kernel started */
  monotonic(): number;
  randomBytes(length: number): Buffer;
}

export interface PermissionNeed {
  kind: PermissionName;
  /** the value checked; undefined checks the whole kind (`Deno.env.toObject`) */
  value?: string;
  /** the value as the script wrote it, for the message (Deno keeps relative paths relative) */
  display?: string;
  /** other values that grant the same thing (a command's resolved path): any one suffices */
  alternatives?: string[];
}

export interface OpDefinition<A = any, R = unknown> {
  name: string;
  mode: 'sync' | 'async';
  /** checks the raw arguments and returns them typed; throws TypeError for bad shapes */
  parse(raw: unknown, ctx: BrokerContext): A;
  /** the permissions this call needs, checked in order before `run` */
  needs(args: A, ctx: BrokerContext): PermissionNeed[];
  run(args: A, ctx: BrokerContext): R | Promise<R>;
}

export function defineOp<A, R>(op: OpDefinition<A, R>): OpDefinition<A, R> {
  return op;
}
