/**
 * The report window: `--since 30m`, `24h`, `7d` (a positive whole number and one unit).
 * Anything else is one usage line (exit 2): a window is never guessed.
 */
import { kernelError } from '../../kernel/errors.ts';

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** The longest window: a year (longer asks are surely typos). */
export const MAX_WINDOW_MS = 366 * UNIT_MS.d;

export function parseSince(text: string): number {
  const match = /^([1-9][0-9]{0,6})([mhd])$/.exec(text);
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : NaN;
  if (!match || ms > MAX_WINDOW_MS) {
    throw kernelError('RTC_ERR_CLI_USAGE', `--since ${JSON.stringify(text)}: use a positive whole number of minutes, hours or days up to 366d, such as 30m, 24h or 7d; see "runtimectl activity --help"`, {
      details: { since: text },
    });
  }
  return ms;
}
