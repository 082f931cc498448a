/**
 * Rows for figures whose subject does not exist yet. They stay in the table, with their
 * targets, so a reader sees what is still owed; no number is given for them.
 */
import { notYet, type ResultRow } from '../lib/result-row.ts';

export function personaCycles(): ResultRow[] {
  const rows: ResultRow[] = [];
  for (const executor of ['none', 'orchestra']) {
    for (const personas of [1, 100, 1000]) {
      rows.push(
        notYet(
          'persona cycles per second',
          `executor \`${executor}\`, ${personas.toLocaleString('en-US')} persona${personas === 1 ? '' : 's'}`,
          executor === 'none' ? '≥ 1,000 cycles/s' : undefined,
          'issue 3',
          'the persona loop and its executors do not exist yet; the floor will be the plugin calls and log appends one cycle makes, done raw.',
        ),
      );
    }
  }
  return rows;
}

export function personaMemory(): ResultRow[] {
  return [1, 100, 1000].map((personas) =>
    notYet(
      'resident memory per persona',
      `${personas.toLocaleString('en-US')} persona${personas === 1 ? '' : 's'}`,
      personas === 1000 ? '1,000 personas in < 2 GiB' : undefined,
      'issue 3',
      'personas do not exist yet; the "one isolate per plugin" rows above measure the isolate part of their cost.',
    ),
  );
}

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
