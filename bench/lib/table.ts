/** Renders result rows as one Markdown table (also what the terminal shows). */
import type { ResultRow } from './result-row.ts';

function figure(value: number | undefined, unit: string): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : Math.abs(value) >= 1 ? 2 : 3;
  const text = value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return unit ? `${text} ${unit}` : text;
}

function ratio(row: ResultRow): string {
  if (row.ratio === undefined || !Number.isFinite(row.ratio)) return row.role === 'floor' ? '1.00x (floor)' : '–';
  if (row.role === 'floor') return '1.00x (floor)';
  return `${row.ratio.toFixed(row.ratio >= 100 ? 0 : 2)}x`;
}

function cell(text: string | undefined): string {
  return (text ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function renderTable(rows: readonly ResultRow[]): string {
  const header = ['case', 'variant', 'median', 'p99', 'n', 'ratio to floor', 'target', 'target met'];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  let previousCase = '';
  for (const row of rows) {
    const caseCell = row.case === previousCase ? '' : `**${row.case}**`;
    previousCase = row.case;
    lines.push(
      `| ${[
        caseCell,
        cell(row.variant),
        figure(row.median, row.unit),
        figure(row.p99, row.unit),
        row.samples === undefined ? '' : String(row.samples),
        ratio(row),
        cell(row.target),
        row.verdict ?? '',
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

/** Notes per row, numbered, for what the table cannot say in a cell. */
export function renderNotes(rows: readonly ResultRow[]): string {
  const lines: string[] = [];
  for (const row of rows) if (row.note) lines.push(`- **${row.case} / ${row.variant}**: ${row.note}`);
  return lines.join('\n');
}

export function renderMisses(rows: readonly ResultRow[]): string {
  const lines: string[] = [];
  for (const row of rows) {
    if (row.verdict === 'missed') lines.push(`- **${row.case} / ${row.variant}** (target ${row.target}): ${row.whyMissed ?? 'no explanation recorded.'}`);
  }
  return lines.length ? lines.join('\n') : '- No measured target was missed in this run.';
}
