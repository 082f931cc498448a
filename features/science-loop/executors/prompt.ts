/**
 * The prompt an executor session gets: who the persona is, which budget tier the policy
 * chose and why, the skills it may use, the work, and what to hand back. The same text
 * goes to codex, claude or any configured command: the loop is provider-neutral.
 */
import type { SkillMeta } from '../../skills/catalog.ts';
import type { BudgetDecision, WorkItem } from '../../../kernel/contracts/executor.ts';

export interface PromptInput {
  personaId: string;
  runtime: string;
  cycle: number;
  phase: string;
  decision: BudgetDecision | null;
  maxTokensPerSession: number | null;
  publicWrites: boolean;
  skills: readonly SkillMeta[];
  work: readonly WorkItem[];
}

export function buildPrompt(p: PromptInput): string {
  const lines: string[] = [
    `# ${p.personaId}: continuous_science_loop cycle ${p.cycle} (${p.phase})`,
    '',
    `You are the ${p.runtime} research agent. This session's provider context is ephemeral; the`,
    'workspace you run in is persistent and is where your files belong.',
    '',
    '## Budget',
  ];
  if (p.decision) {
    const d = p.decision;
    lines.push(
      `- tier ${d.tier}: ${d.tier_name}`,
      `- decision to improve: ${d.decision}`,
      `- uncertainty to reduce: ${d.uncertainty}`,
      `- expected cost: ~${d.expected_cost.tokens} tokens, ${d.expected_cost.wall_seconds} s`,
      `- stop condition: ${d.stop_condition}`,
    );
  }
  if (p.maxTokensPerSession !== null) lines.push(`- hard cap for this session: ${p.maxTokensPerSession} tokens`);
  lines.push(`- public writes: ${p.publicWrites ? 'allowed' : 'not allowed; keep every output in the workspace'}`, '');
  if (p.skills.length > 0) {
    lines.push('## Skills you may follow', '');
    for (const s of p.skills) lines.push(`- ${s.name}: ${s.description.replace(/\s+/g, ' ')}`);
    lines.push('');
  }
  lines.push('## Work', '');
  for (const w of p.work) {
    lines.push(`### ${w.kind === 'packet' ? 'Work packet' : w.kind === 'message' ? 'Direct message' : 'Periodic patrol'}: ${w.title}`, '');
    if (w.body.trim() !== '') lines.push(w.body.trim(), '');
  }
  lines.push('## Hand back', '', 'End with a short summary: what you did, what changed, and the next most informative action.', '');
  return lines.join('\n');
}
