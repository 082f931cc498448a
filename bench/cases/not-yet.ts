/**
 * Rows for figures whose subject does not exist yet. They stay in the table, with their
 * targets, so a reader sees what is still owed; no number is given for them.
 */
import { notYet, type ResultRow } from '../lib/result-row.ts';

export function replay(): ResultRow[] {
  return [
    notYet(
      'replay, effects per second',
      '`runtimectl replay`',
      '≥ 100,000 effects/s',
      'issue 5',
      'recorded effects and `runtimectl replay` do not exist yet; the floor will be reading and parsing the same JSONL.',
    ),
  ];
}
