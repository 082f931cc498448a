/**
 * `npm run layering`: the folder-level import graph, the feature cycles, the rules one line per
 * folder, and every import that breaks a rule. With `--write` it rewrites the copies of the rules
 * in kernel/README.md and docs/architecture.md (RULE_QUOTES). Exits 1 when the test would fail
 * (any offence).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { RULE_QUOTES, checkLayering, formatOffence, renderGraph, renderRules, withQuote } from './layering-check.ts';

if (process.argv.includes('--write')) {
  for (const q of RULE_QUOTES) {
    const file = path.join(PROJECT_ROOT, q.file);
    const before = readFileSync(file, 'utf8');
    const after = withQuote(before, q.marker, q.render());
    if (after !== before) writeFileSync(file, after);
    console.log(`${q.file}: ${after === before ? 'unchanged' : 'rewritten'}`);
  }
}
const report = checkLayering(PROJECT_ROOT);
const out: string[] = ['rules:', renderRules(), '', renderGraph(report), ''];
out.push(`offences: ${report.offences.length === 0 ? 'none' : report.offences.length}`);
for (const o of report.offences) out.push(`  ${formatOffence(o)}`);
console.log(out.join('\n'));
process.exitCode = report.offences.length > 0 ? 1 : 0;
