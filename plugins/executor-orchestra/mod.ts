/**
 * executor.orchestra: each work item becomes one task in the persona's local ledger
 * (`Runtimectl.bindings.ledger`), unless a task with the same title is still open. Spends no
 * tokens, so it may run in a read-only posture: task creation is what read-only planning
 * is allowed to do. With `config.harness: {command, args}` it then runs that command in the
 * workspace; the command inherits ORCHESTRA_DB and ORCHESTRA_DB_PATH (the local ledger)
 * from the environment the kernel gave this plugin.
 */
import { stringList, type ExecutorInput, type ExecutorResult, type WorkItem } from '../executor-shared/contract.ts';
import { bindings, deno } from '../executor-shared/globals.ts';
import { runCli, writePrompt, writeSession } from '../executor-shared/session.ts';
import { PARSERS } from '../executor-shared/usage.ts';

export function describe(): { spends_tokens: boolean } {
  return { spends_tokens: false };
}

function taskTitle(item: WorkItem, phase: string): string {
  const title = item.title.slice(0, 150);
  if (item.kind === 'packet') return `Work packet: ${title}`;
  if (item.kind === 'message') return `Direct message: ${title}`;
  return `${phase} patrol`;
}

function taskDescription(item: WorkItem, input: ExecutorInput): string {
  const decision = input.decision as { tier?: number; tier_name?: string; stop_condition?: string } | null;
  const lines = [`From cycle run ${input.run_id} (${input.phase}); work key ${item.key}.`];
  if (decision?.tier) lines.push(`Budget tier ${decision.tier} (${decision.tier_name ?? ''}). Stop when: ${decision.stop_condition ?? 'n/a'}.`);
  if (item.body) lines.push('', item.body);
  return lines.join('\n').slice(0, 2000);
}

/**
 * Whether ORCHESTRA_DB and ORCHESTRA_DB_PATH both name this persona's own ledger; null when
 * the persona's allow list does not let this plugin read them (they are set either way).
 */
function checkLocalDb(ledgerRel: string): boolean | null {
  try {
    const db = deno.env.get('ORCHESTRA_DB');
    return db !== undefined && db === deno.env.get('ORCHESTRA_DB_PATH') && db.endsWith(`/${ledgerRel}`);
  } catch {
    return null;
  }
}

export async function run(input: ExecutorInput): Promise<ExecutorResult> {
  const existing = await bindings.ledger.list();
  const open = new Map(existing.filter((t) => t.state !== 'accepted').map((t) => [t.title, t]));
  const created: { id: string; title: string; state: string }[] = [];
  const kept: string[] = [];
  for (const item of input.work) {
    const title = taskTitle(item, input.phase);
    const already = open.get(title);
    if (already) {
      kept.push(`${already.id} ${title} (already open)`);
      continue;
    }
    const task = await bindings.ledger.createTask({ title, description: taskDescription(item, input) });
    open.set(title, task);
    created.push(task);
  }
  const localDb = checkLocalDb(input.paths.ledger_db_rel);
  const summary = [
    created.length > 0 ? `created ${created.map((t) => `${t.id} "${t.title}"`).join(', ')}` : 'created no task',
    ...(kept.length > 0 ? [`kept ${kept.join(', ')}`] : []),
  ].join('; ');
  const extra = { orchestra_db: input.paths.ledger_db_rel, orchestra_env_is_local: localDb, tasks_created: created, tasks_kept: kept };

  const harness = input.config.harness as { command?: unknown; args?: unknown; usage_format?: unknown } | undefined;
  if (harness && typeof harness.command === 'string') {
    const parse = PARSERS[typeof harness.usage_format === 'string' ? harness.usage_format : 'none'] ?? PARSERS.none!;
    const result = await runCli(input, { plugin: 'executor.orchestra', command: harness.command, args: stringList(harness.args), env: { HOME: input.paths.provider_home }, parse });
    return { ...result, tasks: created, last_message: `${summary}; harness: ${result.status}`, work_done: input.work.map((w) => w.key) };
  }
  await writePrompt(input);
  const files = await writeSession(input, {
    plugin: 'executor.orchestra',
    command: null,
    args: [],
    status: 'ok',
    usage: null,
    stdout: `${JSON.stringify({ created, kept })}\n`,
    stderr: '',
    lastMessage: summary,
    extra,
  });
  return { status: 'ok', usage: null, files, last_message: summary, tasks: created, work_done: input.work.map((w) => w.key) };
}
