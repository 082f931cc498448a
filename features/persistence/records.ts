/**
 * What every backend accepts as memory and proposal records. The backends store them as
 * text, byte for byte (their meaning belongs to the loop and the review queue); these checks
 * only keep a store readable: brain.json is one JSON object, a proposal record is one JSON
 * object on one line.
 */
import { kernelError } from '../../kernel/errors.ts';

export function checkBrainText(text: string): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw kernelError('RTC_ERR_PERSISTENCE_INPUT', `brain.json: not valid JSON (${(error as Error).message.split('\n')[0]})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw kernelError('RTC_ERR_PERSISTENCE_INPUT', 'brain.json: must be one JSON object');
  }
}

export function checkProposalLine(line: string, index = 0): void {
  if (line.includes('\n') || line.includes('\r')) {
    throw kernelError('RTC_ERR_PERSISTENCE_INPUT', `proposal record ${index + 1}: must be one line (it contains a line break)`);
  }
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw kernelError('RTC_ERR_PERSISTENCE_INPUT', `proposal record ${index + 1}: not valid JSON (${(error as Error).message.split('\n')[0]})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw kernelError('RTC_ERR_PERSISTENCE_INPUT', `proposal record ${index + 1}: must be one JSON object`);
  }
}

/** Parses stored lines; a line that is not JSON is reported with its position. */
export function parseProposalLines(lines: readonly string[], location: string): unknown[] {
  return lines.map((line, i) => {
    try {
      return JSON.parse(line) as unknown;
    } catch (error) {
      throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${location}:${i + 1}: proposal record is not valid JSON (${(error as Error).message.split('\n')[0]})`, {
        details: { file: location, line: i + 1 },
      });
    }
  });
}
