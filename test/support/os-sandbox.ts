/**
 * Whether the OS sandbox can run on this machine: tests that prove it skip with the reason
 * when bubblewrap is missing or cannot build a sandbox here (a newcomer's `npm test` stays
 * green; CI installs bubblewrap and runs them).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { locateBwrap } from '../../sandboxes/subprocess/os-sandbox/bwrap.ts';

async function probe(): Promise<string | false> {
  try {
    await locateBwrap(process.env);
    return false;
  } catch (error) {
    return `the OS sandbox cannot run here (${(error as Error).message}); CI installs bubblewrap`;
  }
}

/** false when bubblewrap works; else the reason, for `test(name, { skip })`. */
export const NO_OS_SANDBOX: string | false = await probe();
if (NO_OS_SANDBOX) process.stderr.write(`skipping OS sandbox tests: ${NO_OS_SANDBOX}\n`);

/** Processes on this machine with `tag` as one argument of their command line (the fakes' leftovers sleep that many seconds). */
export function processesNamed(tag: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(tag)) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
