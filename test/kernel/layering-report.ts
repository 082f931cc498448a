/**
 * `npm run layering`: the folder-level import graph, the feature cycles, the rules one line per
 * folder, and the known offenders by rule (test/kernel/layering-known.ts). With `--offenders` it also
 * lists each known offence; with `--write` it rewrites the copies of the rules in kernel/README.md
 * and docs/architecture.md (RULE_QUOTES). Exits 1 when the test would fail (a new offence or a
 * stale entry).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { RULE_QUOTES, checkLayering, compareKnown, formatOffence, renderGraph, renderRules, withQuote } from './layering-check.ts';
import { KNOWN_OFFENDERS } from './layering-known.ts';

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
const known = compareKnown(report.offences, KNOWN_OFFENDERS);
const out: string[] = ['rules:', renderRules(), '', renderGraph(report), ''];
const byRule = Object.entries(known.knownByRule).map(([rule, n]) => `${rule} ${n}`);
out.push(`known offenders: ${report.offences.length - known.unlisted.length} (${byRule.join(', ') || 'none'})`);
if (process.argv.includes('--offenders')) for (const o of report.offences) out.push(`  ${formatOffence(o)}`);
for (const o of known.unlisted) out.push(`NEW: ${formatOffence(o)}`);
for (const s of known.stale) out.push(`STALE (delete from test/kernel/layering-known.ts): ${s.from} → ${s.to}`);
console.log(out.join('\n'));
process.exitCode = known.unlisted.length + known.stale.length > 0 ? 1 : 0;
