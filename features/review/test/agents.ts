/**
 * Fake agents that propose, for the loop tests of issue 24: an executor plugin that proposes
 * through `Runtimectl.bindings.proposals` (executor.proposer), and a persona whose executor
 * session proposes through the `review.propose` MCP tool (the command executor running the
 * MCP client of test/fixtures/bin/mcp-client.cjs, the same client the fake codex and claude
 * use). Each writes its plugin and profile into a temp folder.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FAKE_BIN } from '../../science-loop/test/helpers.ts';
import { personaPaths, workspaceDir } from '../../persona-layout/layout.ts';

export { FAKE_BIN };

const BUDGET = 'budget: { daily_tokens: 200000, max_tokens_per_session: 50000, min_tokens_remaining_for_executor: 1000, max_autonomous_sessions_per_day: 50, wall_seconds_per_cycle: 30 }';

/**
 * executor.proposer: each session proposes a memory promotion resting on the persona's first
 * event, then tries three bad ones (evidence outside the persona, too large, malformed) and
 * lists the queue; its last message is what it was answered: `[["queued","P-x-1"],["refused","evidence"],...]`.
 */
export function proposerPlugin(pluginsDir: string): void {
  const dir = path.join(pluginsDir, 'executor-proposer');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'plugin.yaml'),
    `id: executor.proposer
version: 1.0.0
kind: executor
entry: mod.ts
description: A fake agent that proposes to its persona's review queue through the proposals binding.
sandbox: trusted
bindings: [proposals]
exports: [describe, run]
`,
  );
  writeFileSync(
    path.join(dir, 'mod.ts'),
    `export function describe() { return { spends_tokens: false }; }
export async function run(input: { run_id: string; work: { key: string }[] }) {
  const proposals = (globalThis as any).Runtimectl.bindings.proposals;
  const answers: unknown[] = [];
  answers.push(await proposals.submit({ kind: 'memory-promotion', text: 'Assay B separates A from B (' + input.run_id + ').', evidence: ['events#1'] }));
  answers.push(await proposals.submit({ kind: 'memory-promotion', text: 'leak?', evidence: ['/etc/passwd'] }));
  answers.push(await proposals.submit({ kind: 'memory-promotion', text: 'x'.repeat(600000), evidence: ['events#1'] }));
  answers.push(await proposals.submit({ kind: 'memory-promotion', evidence: ['events#1'] }));
  const listed = await proposals.list();
  const said = answers.map((a: any) => [a.status, a.status === 'queued' ? a.id : a.reason]);
  return { status: 'ok', last_message: JSON.stringify({ said, listed: listed.length }), work_done: input.work.map((w) => w.key) };
}
`,
  );
}

/** A persona running executor.proposer, granting the proposals binding. */
export function binderProfile(dir: string, id = 'binder', extra = ''): string {
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(
    file,
    `id: ${id}
runtime: agent-${id}
executor: { plugin: executor.proposer, enabled: true }
${BUDGET}
allow: { read: ["\${state}"], write: ["\${state}"] }
bindings: [proposals]
${extra}`,
  );
  return file;
}

/** The review.propose call an agent makes: a memory promotion resting on a file of its workspace and the persona's first event. */
export const MCP_PROPOSAL = { kind: 'memory-promotion', text: 'The agent says: assay B separates A from B.', evidence: ['workspace:notes.md', 'events#1'] };

/**
 * A persona whose executor session (the command executor running the MCP client, as the fake
 * codex and claude do) calls review.propose on the server it was handed, with evidence in its
 * workspace (notes.md, which agentNotes writes beforehand, as an earlier session would have),
 * then once more with evidence outside the persona, then review.proposals. What it saw goes to
 * fake-mcp.json in the workspace.
 */
export function mcpProfile(dir: string, id = 'talker'): string {
  const calls = [`--fake-mcp-call=review.propose:${JSON.stringify(MCP_PROPOSAL)}`, `--fake-mcp-call=review.propose:${JSON.stringify({ ...MCP_PROPOSAL, evidence: ['/etc/passwd'] })}`, '--fake-mcp-call=review.proposals'];
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(
    file,
    `id: ${id}
runtime: agent-${id}
executor:
  plugin: executor.command
  enabled: true
  config: { command: mcp-client.cjs, args: ${JSON.stringify(['env', ...calls])}, spends_tokens: false }
${BUDGET}
allow: { read: ["\${state}"], write: ["\${state}"], run: [mcp-client.cjs, ${JSON.stringify(process.execPath)}] }
bindings: [proposals]
`,
  );
  return file;
}

/** The workspace file the MCP agent's proposal rests on (`workspace:notes.md`). */
export function agentNotes(stateDir: string, persona = 'talker'): void {
  const ws = workspaceDir(personaPaths(stateDir, persona));
  mkdirSync(ws, { recursive: true });
  writeFileSync(path.join(ws, 'notes.md'), 'measured twice\n');
}

export function packet(stateDir: string, persona: string, name = 'q.md'): void {
  const inbox = path.join(stateDir, persona, 'inbox');
  mkdirSync(inbox, { recursive: true });
  writeFileSync(path.join(inbox, name), `# ${name}\n\nWhich assay separates A from B?\n`);
}
