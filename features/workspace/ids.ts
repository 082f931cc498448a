/**
 * Agent, workspace and resource ids become path segments under the state directory, so
 * each must be exactly one harmless segment: no separators, no `..`, not hidden, not empty.
 */
import { kernelError } from '../../kernel/errors.ts';

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const MAX_ID_LENGTH = 128;

/** Why `value` is not a safe id, or undefined when it is. */
export function unsafeIdReason(value: string): string | undefined {
  if (value === '') return 'is empty';
  if (value.includes('/') || value.includes('\\')) return 'contains a path separator';
  if (value.includes('..')) return 'contains ".."';
  if (value.startsWith('.')) return 'starts with "."';
  if (value.length > MAX_ID_LENGTH) return `is longer than ${MAX_ID_LENGTH} characters`;
  if (!SAFE_ID.test(value)) return 'may contain only letters, digits, ".", "_" and "-", starting with a letter or digit';
  return undefined;
}

/** Throws RTC_ERR_WORKSPACE_ID_INVALID naming the id's role (`--agent-id`, `workspace id`, ...). */
export function assertSafeId(role: string, value: string): void {
  const reason = unsafeIdReason(value);
  if (reason !== undefined) {
    throw kernelError('RTC_ERR_WORKSPACE_ID_INVALID', `${role} ${JSON.stringify(value)} ${reason}`, { details: { role, value, reason } });
  }
}
