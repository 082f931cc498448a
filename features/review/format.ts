/** How `runtimectl proposals` prints proposals for people (the --json forms print them as they are). */
import { iso } from '../review-queue/operations.ts';
import { isOverdue } from '../review-queue/queue.ts';
import type { FileChangeContent, MemoryPromotionContent, SkillDraftContent } from '../review-queue/records.ts';
import type { Proposal } from '../review-queue/state.ts';

export function proposalSummary(proposal: Proposal): string {
  switch (proposal.kind) {
    case 'memory-promotion': {
      const first = (proposal.content as MemoryPromotionContent).text.trim().split('\n')[0] ?? '';
      return first.length > 60 ? `${first.slice(0, 59)}…` : first;
    }
    case 'skill-draft':
      return `skill ${(proposal.content as SkillDraftContent).skill}`;
    default:
      return (proposal.content as FileChangeContent).path;
  }
}

/**
 * The state as an operator wants to read it: overdue, applied and held are visible. An
 * accepted proposal the loop found unratifiable says so ("held") until it is applied, instead
 * of promising the next cycle forever.
 */
export function displayState(proposal: Proposal, now: number): string {
  if (isOverdue(proposal, now)) return `${proposal.state} (overdue)`;
  if (proposal.state !== 'accepted') return proposal.state;
  if (!proposal.applied) return proposal.held ? 'accepted (HELD: not applied)' : 'accepted (takes effect next cycle)';
  return proposal.applied.effect.status === 'applied' ? 'accepted (applied)' : 'accepted (awaiting operator)';
}

/** Who proposed, with the way in the kernel recorded (plugin, tool, session, cycle). */
export function proposerText(proposal: Pick<Proposal, 'proposer' | 'origin'>): string {
  const o = proposal.origin;
  if (!o) return proposal.proposer;
  const parts = [`via ${o.via}`, ...(o.tool ? [`tool ${o.tool}`] : []), ...(o.run_id ? [`session ${o.run_id}`] : []), ...(o.cycle === undefined ? [] : [`cycle ${o.cycle}`])];
  return `${proposal.proposer} (${parts.join(', ')})`;
}

export function proposalLine(proposal: Proposal, now: number): string {
  return `${proposal.id}  ${displayState(proposal, now).padEnd(20)}  ${proposal.kind.padEnd(16)}  ${proposal.proposer}  ${proposalSummary(proposal)}\n`;
}

export function proposalDetails(proposal: Proposal, now: number): string {
  const lines = [
    `${proposal.id}  ${proposal.kind}  ${displayState(proposal, now)}`,
    `  persona:   ${proposal.persona}`,
    `  proposer:  ${proposerText(proposal)}`,
    `  created:   ${iso(proposal.created_at)}`,
    `  expires:   ${iso(proposal.expires_at)}`,
    '  evidence:',
    ...proposal.evidence.map((e) => `    ${e.ref}  ${e.digest}`),
  ];
  switch (proposal.kind) {
    case 'memory-promotion':
      lines.push('  text:', ...(proposal.content as MemoryPromotionContent).text.replace(/\n$/, '').split('\n').map((l) => `    ${l}`));
      break;
    case 'skill-draft': {
      const c = proposal.content as SkillDraftContent;
      lines.push(`  skill:     ${c.skill}`, `  package:   ${c.package.ref}  ${c.package.digest}`);
      break;
    }
    default: {
      const c = proposal.content as FileChangeContent;
      lines.push(`  path:      ${c.path}`, `  content:   ${c.content_digest} (${c.bytes} bytes, review/blobs/${c.content_digest.slice(7)})`);
    }
  }
  lines.push('  history:', `    ${iso(proposal.created_at)}  submitted by ${proposal.proposer}`);
  for (const t of proposal.history) {
    const signed = t.ratification ? ` (signed, key ${t.ratification.key_fingerprint.slice(0, 23)}…)` : ' (unsigned: never applied)';
    lines.push(`    ${iso(t.at)}  ${t.from} → ${t.to} by ${t.by}${signed}${t.reason === undefined ? '' : `: ${t.reason}`}`);
  }
  if (proposal.applied) {
    const effect = proposal.applied.effect;
    const what = effect.status === 'applied' ? `appended ${effect.bytes} bytes to ${effect.file}` : effect.action;
    lines.push(`    ${iso(proposal.applied.at)}  applied: ${what}`);
  } else if (proposal.held && proposal.state === 'accepted') {
    lines.push(`    ${iso(proposal.held.at)}  HELD by the loop: ${proposal.held.reason}`);
  }
  return `${lines.join('\n')}\n`;
}
