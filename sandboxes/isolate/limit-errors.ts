/**
 * isolated-vm reports limits as plain Errors with fixed messages; this maps them (and the
 * kernel's own watchdog reasons) onto the kernel's stable codes, the way Fastify maps
 * avvio's errors. Anything unrecognised is returned as undefined for the caller to wrap.
 */
import { kernelError, type ErrorCode, type KernelError } from '../../kernel/errors.ts';
import type { Limits } from '../../kernel/manifest/sandbox-profile.ts';

export type LimitReason = 'memory' | 'cpu' | 'wall' | 'output' | 'transfer' | 'crashed';

const CODES: Record<LimitReason, ErrorCode> = {
  memory: 'RTC_ERR_SANDBOX_MEMORY',
  cpu: 'RTC_ERR_SANDBOX_CPU',
  wall: 'RTC_ERR_SANDBOX_WALL',
  output: 'RTC_ERR_SANDBOX_OUTPUT',
  transfer: 'RTC_ERR_SANDBOX_TRANSFER',
  crashed: 'RTC_ERR_SANDBOX_CRASHED',
};

export function limitError(reason: LimitReason, limits: Limits, detail = ''): KernelError {
  const text: Record<LimitReason, string> = {
    memory: `memory limit of ${limits.memoryMb} MB exceeded`,
    cpu: `CPU time limit of ${limits.cpuMs} ms exceeded`,
    wall: `wall time limit of ${limits.wallMs} ms exceeded`,
    output: `output cap of ${limits.outputBytes} bytes exceeded`,
    transfer: `transfer cap of ${limits.transferBytes} bytes exceeded${detail ? ` (${detail})` : ''}`,
    crashed: `the sandbox host process died${detail ? ` (${detail})` : ''}`,
  };
  return kernelError(CODES[reason], text[reason], { details: { limit: reason } });
}

/** The limit an isolated-vm error stands for, if it stands for one. */
export function reasonOfIvmError(error: unknown): LimitReason | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (/memory limit/i.test(message)) return 'memory';
  if (/timed out/i.test(message)) return 'cpu';
  return undefined;
}

export function isDisposedError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /disposed/i.test(message);
}
