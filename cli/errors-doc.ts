/**
 * docs/errors.md, generated from kernel/errors.ts: one heading (so one anchor) per code, grouped
 * by the area comments of ERROR_CODES, with its text and its note; the retired codes after them.
 * The areas and notes are comments, so they are read from the source with TypeScript's parser:
 * a `//` line before a code starts an area, a doc comment (`/**`) is that code's note.
 * `npm run schemas` writes it; test/kernel/errors.test.ts fails when it is stale.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ERROR_CODES, RETIRED_ERROR_CODES } from '../kernel/errors.ts';
import { PROJECT_ROOT } from '../kernel/version.ts';

export const ERRORS_DOC = path.join(PROJECT_ROOT, 'docs', 'errors.md');
const ERRORS_SOURCE = path.join(PROJECT_ROOT, 'kernel', 'errors.ts');

export interface ErrorArea {
  area: string;
  codes: { code: string; text: string; note?: string }[];
}

function objectLiteral(source: ts.SourceFile, name: string): ts.ObjectLiteralExpression {
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const d of statement.declarationList.declarations) {
      let init = d.initializer;
      while (init && (ts.isAsExpression(init) || ts.isSatisfiesExpression(init))) init = init.expression;
      if (ts.isIdentifier(d.name) && d.name.text === name && init && ts.isObjectLiteralExpression(init)) return init;
    }
  }
  throw new Error(`kernel/errors.ts: no object literal ${name}`);
}

/** The areas of ERROR_CODES in source order, each code with its text (from the module) and note (from its doc comment). */
export function errorAreas(text = readFileSync(ERRORS_SOURCE, 'utf8')): ErrorArea[] {
  const source = ts.createSourceFile(ERRORS_SOURCE, text, ts.ScriptTarget.Latest, true);
  const areas: ErrorArea[] = [];
  for (const prop of objectLiteral(source, 'ERROR_CODES').properties) {
    const code = prop.name && (ts.isIdentifier(prop.name) || ts.isStringLiteral(prop.name)) ? prop.name.text : undefined;
    if (!code || !(code in ERROR_CODES)) throw new Error(`kernel/errors.ts: ERROR_CODES has a member that is not a code (line ${source.getLineAndCharacterOfPosition(prop.getStart()).line + 1})`);
    const comments = ts.getLeadingCommentRanges(text, prop.getFullStart()) ?? [];
    const lines = comments.filter((c) => c.kind === ts.SyntaxKind.SingleLineCommentTrivia).map((c) => text.slice(c.pos + 2, c.end).trim());
    const docs = comments.filter((c) => c.kind === ts.SyntaxKind.MultiLineCommentTrivia).map((c) => text.slice(c.pos + 2, c.end - 2).replace(/^\*/, '').replace(/\n\s*\* ?/g, ' ').trim());
    if (lines.length > 0) areas.push({ area: lines.join(' '), codes: [] });
    if (areas.length === 0) throw new Error(`kernel/errors.ts: ${code} comes before the first area comment`);
    const entry: ErrorArea['codes'][number] = { code, text: ERROR_CODES[code as keyof typeof ERROR_CODES] };
    if (docs.length > 0) entry.note = docs.join(' ');
    areas.at(-1)!.codes.push(entry);
  }
  return areas;
}

/** Markdown outside code spans: `<state>` would be read as an HTML tag. */
const escaped = (s: string) => s.split('`').map((part, i) => (i % 2 === 1 ? part : part.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'))).join('`');
const capital = (s: string) => escaped(`${s.charAt(0).toUpperCase()}${s.slice(1)}`);
const sentence = (s: string) => `${capital(s)}${/[.!?]$/.test(s) ? '' : '.'}`;

/** GitHub's heading anchor for a code heading (`### \`RTC_ERR_X\`` → `rtc_err_x`). */
export const codeAnchor = (code: string) => code.toLowerCase();

export function renderErrorsDoc(): string {
  const areas = errorAreas();
  const count = areas.reduce((n, a) => n + a.codes.length, 0);
  const lines = [
    '# Error codes',
    '',
    'Generated from `kernel/errors.ts` by `npm run schemas`; do not edit.',
    '',
    `Every error runtimectl raises on purpose has one of these ${count} stable codes. The CLI prints it as one`,
    'line on stderr, `runtimectl: RTC_ERR_<AREA>_<WHAT>: what is wrong and where`, with no stack trace, and',
    'exits 2 for `RTC_ERR_CLI_USAGE`, 1 for any other code. An error marked internal is a fault of',
    "runtimectl's own: it is printed with its stack as an internal error, exit 70. Reports in `--json`",
    'carry the code as `code`. A code is never renamed or reused: a code that is no longer raised is',
    'retired (listed at the end) and its name stays reserved.',
    '',
    '## Areas',
    '',
    ...areas.map((a) => `- ${capital(a.area)}: ${a.codes.map((c) => `[\`${c.code}\`](#${codeAnchor(c.code)})`).join(', ')}`),
    '- Retired: ' + Object.keys(RETIRED_ERROR_CODES).map((c) => `[\`${c}\`](#${codeAnchor(c)})`).join(', '),
  ];
  for (const a of areas) {
    lines.push('', `## ${capital(a.area)}`);
    for (const c of a.codes) {
      lines.push('', `### \`${c.code}\``, '', sentence(c.text));
      if (c.note) lines.push('', `Note: ${escaped(c.note)}${/[.!?]$/.test(c.note) ? '' : '.'}`);
    }
  }
  lines.push('', '## Retired', '', 'Retired, never reuse: these codes were shipped and are no longer raised.');
  for (const [code, text] of Object.entries(RETIRED_ERROR_CODES)) lines.push('', `### \`${code}\``, '', sentence(text));
  return `${lines.join('\n')}\n`;
}
