/**
 * A refusal: the one kind of error that means "the sandbox said no". Every NotCapable the
 * broker sends back into an isolate is a Refusal, and carries what was refused (the
 * permission, the value, why), so the broker can audit it at its single boundary
 * (broker.ts) whichever check raised it: the gate, a special file, a symlink leaving a
 * strict grant, a loader variable, a redirect hop, a binding. An op never audits a refusal
 * itself and cannot forget to.
 */
import type { PermissionName } from '../permissions/descriptors.ts';
import { DenoOpError, type DenoErrorClass } from './deno-error.ts';

/** What an audit event names as refused or granted: a Deno kind, `all` (special files), a kernel binding. */
export type AuditPermission = PermissionName | 'all' | 'binding';

/** Why a check beyond the plain grant was made; absent for the grant itself. */
export type RefusalReason =
  | 'special-file'
  | 'kernel-file'
  | 'strict-symlink'
  | 'loader-variable'
  | 'redirect'
  /** a granted name that resolves to a denied address (sandboxes/deno/ops/checked-address.ts) */
  | 'resolved-address'
  | 'binding'
  | 'os-sandbox'
  | 'write-quota'
  /** answered before its permission was checked (bad arguments, not found, a quota): attempts.ts */
  | 'before-check'
  /** an API the sandbox does not implement (Deno.connect, Deno.dlopen...): the attempt of its kind */
  | 'unsupported'
  /** Deno.permissions.request answered "denied" (there is no one to ask) */
  | 'permission-request'
  /** made after the script called Deno.exit (caught the exit and carried on): never performed */
  | 'after-exit'
  /** its arguments passed the sandbox's transfer cap: the run ended on that limit, nothing was performed */
  | 'limit'
  /** replayed: answered from the recording, decided on the grant (the op's own checks while it ran are not made again) */
  | 'replayed';

export class Refusal extends DenoOpError {
  readonly permission: AuditPermission;
  readonly value: string | null;
  readonly reason: RefusalReason | undefined;

  /** `as`: the class the script sees when it is not NotCapable (a write quota answers as a full disk: Error, ENOSPC) */
  constructor(permission: AuditPermission, value: string | null, message: string, reason?: RefusalReason, as?: { denoClass: DenoErrorClass; osCode?: string }) {
    super(as?.denoClass ?? 'NotCapable', message, as?.osCode);
    this.permission = permission;
    this.value = value;
    this.reason = reason;
  }
}
