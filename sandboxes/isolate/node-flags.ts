/**
 * isolated-vm 5 on Node 20 must run with `--no-node-snapshot` (its README: shared-heap
 * crashes across snapshots). Checked once before any isolate exists, so a kernel started
 * without it stops with one line instead of failing somewhere later.
 */
import { kernelError } from '../../kernel/errors.ts';

export function hasNoNodeSnapshot(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): boolean {
  return execArgv.includes('--no-node-snapshot') || nodeOptions.split(/\s+/).includes('--no-node-snapshot');
}

export function assertNodeFlags(): void {
  if (!hasNoNodeSnapshot()) {
    throw kernelError(
      'RTC_ERR_NODE_FLAGS',
      'isolated-vm needs Node started with --no-node-snapshot; run `node --no-node-snapshot ...` or set NODE_OPTIONS=--no-node-snapshot',
    );
  }
}
