/**
 * gate-check.prose-risk: a skill is mostly prose an agent follows with the user's machine
 * and credentials at hand, so its instructions are read like code: every text file of the
 * snapshot (SKILL.md, the references it points to, scripts), line by line and paragraph by
 * paragraph, against the patterns in rules.ts. Any finding fails the check and so rejects
 * the draft; the reason names each finding by file, line and rule.
 *
 * What passing does not mean is said every time, as not evaluated: these are patterns, not
 * an understanding of intent; the outside hosts the draft names are listed (what an agent
 * would fetch from them is not evaluated); a secret used in its own Authorization header is
 * listed for the reviewer to confirm the host is that service's.
 */
import { deno } from '../gate-check-shared/globals.ts';
import { result, type GateCheckInput, type GateCheckResult } from '../gate-check-shared/results.ts';
import { scanText, type Finding } from './rules.ts';

/** Findings named in the one-line reason; all of them are in the output. */
const REASON_FINDINGS = 10;

async function readText(root: string, file: string): Promise<string | null> {
  let text: string;
  try {
    text = await deno.readTextFile(`${root}/${file}`);
  } catch {
    return null;
  }
  // A NUL in the first few KB: not text, nothing an agent reads as instructions.
  return text.slice(0, 8192).includes('\u0000') ? null : text;
}

export async function check(input: GateCheckInput): Promise<GateCheckResult> {
  const files = input.draft.files.filter((f) => f.type === 'file').map((f) => f.path);
  const findings: Finding[] = [];
  const hosts = new Set<string>();
  const notes: string[] = [];
  const read: string[] = [];
  const skipped: string[] = [];
  for (const file of files) {
    const text = await readText(input.draft.root, file);
    if (text === null) {
      skipped.push(file);
      continue;
    }
    read.push(file);
    const found = scanText(file, text);
    const seen = new Set<string>();
    for (const f of found.findings) {
      const key = `${f.rule}:${f.line}`;
      if (!seen.has(key)) findings.push(f);
      seen.add(key);
    }
    for (const h of found.hosts) hosts.add(h);
    notes.push(...found.authNotes);
  }
  const notEvaluated = [
    `the intent of the instructions: ${read.length} text file(s) were searched for known risky patterns (credentials, private keys, network code run unreviewed, data sent to outside hosts, concealment, hidden text), which finds only those patterns, not every harmful instruction`,
    ...(hosts.size > 0 ? [`the draft names ${hosts.size} outside host(s) (${[...hosts].sort().join(', ')}): what an agent would fetch from or send to them is not evaluated`] : []),
    ...notes,
    ...(skipped.length > 0 ? [`${skipped.length} file(s) not read as text (binary or unreadable): ${skipped.join(', ')}`] : []),
  ];
  const output = { files_read: read, files_skipped: skipped, findings, hosts: [...hosts].sort() };
  if (findings.length > 0) {
    const named = findings.slice(0, REASON_FINDINGS).map((f) => `${f.file}:${f.line}: ${f.rule}: ${f.what} ("${f.excerpt}")`);
    const more = findings.length > REASON_FINDINGS ? `; and ${findings.length - REASON_FINDINGS} more` : '';
    return result('failed', `${findings.length} risky instruction(s): ${named.join('; ')}${more}`, output, notEvaluated);
  }
  if (read.length === 0) return result('not-applicable', 'the draft has no text file to read', output, notEvaluated);
  return result('passed', `${read.length} text file(s) read; no instruction reaches for credentials, runs network code unreviewed or sends data to an outside host`, output, notEvaluated);
}
