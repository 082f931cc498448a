/**
 * Step 7 of the cycle: defer or execute. In order, each check naming why it stops:
 *
 *   no work found                      → idle (a healthy quiet cycle)
 *   executor disabled                  → deferred
 *   executor plugin missing or broken  → failed
 *   token-spending executor, and the runtime's hard stops (no daily budget, session cap,
 *     too little headroom)             → deferred: read-only planning (below)
 *   the budget policy (a sandboxed plugin) picks a tier and records its decision:
 *     reviewer_handoff                 → deferred; the work becomes review tasks in the ledger
 *     read_only_planning               → deferred: read-only planning (below)
 *   token-spending and --no-spend      → deferred, the approved decision kept
 *   otherwise the executor runs one session in the persona workspace.
 *
 * Read-only planning: the work stays queued for a funded cycle, and each queued item gets
 * one `Planned: <title>` task in the persona's own ledger (task creation is what a
 * read-only posture still allows). Nothing here throws for bad input: a failure is an
 * outcome with its reason.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { hardStop, type BudgetPosture } from './budget/posture.ts';
import { checkPluginAnswer } from '../../kernel/contracts/answer.ts';
import { budgetDecisionSchema, type BudgetDecision } from '../../kernel/contracts/budget-policy.ts';
import { executorDescriptionSchema, executorResultSchema, type ExecutorInput, type McpServerSpec, type ProviderUsage, type SessionSandbox, type WorkItem } from '../../kernel/contracts/executor.ts';
import type { PersonaChildren } from './executors/children.ts';
import { ensureProviderHome, providerHomeDir } from './executors/provider-home.ts';
import { scrubString } from '../../kernel/redact/index.ts';
import type { SandboxRecord } from '../../sandboxes/subprocess/run-command.ts';
import { subprocessNet } from '../../sandboxes/subprocess/os-sandbox/grant-view.ts';
import type { ExecutorChoice } from './executors/choice.ts';
import { buildPrompt } from './executors/prompt.ts';
import { allocateRunId, checkSessionManifest, markSessionManifest, preparePersonaWorkspace, writeFallbackManifest, type FallbackFields, type SessionFolder } from './executors/session-dir.ts';
import { errorLine, isKernelError } from '../../kernel/errors.ts';
import type { TaskSummary } from '../../kernel/broker/bindings.ts';
import type { LedgerAccess } from '../ledger/access.ts';
import type { PersonaProfile } from '../../kernel/personas/profile-schema.ts';
import type { SkillMeta } from '../skills/catalog.ts';
import type { RecentCycle } from './brain.ts';
import { relToState, WORKSPACE_ID, workspaceDir, type PersonaPaths } from '../persona-layout/layout.ts';
import type { StepPlugins } from '../../kernel/loop/steps.ts';
import type { PersonaContext } from '../../kernel/loop/steps.ts';

export type Outcome = 'executed' | 'deferred' | 'idle' | 'failed' | 'interrupted';

/** What the OS sandbox did for the session's children, for the cycle event (the whole record is the session's sandbox.json). */
export interface SandboxSummary {
  mode: 'bubblewrap' | 'off';
  children: number;
  /** processes left running when a child ended (killed with its sandbox) */
  leftover: number;
  net_granted: string[];
  net_denied: string[];
}

export interface ActResult {
  outcome: Outcome;
  reason: string | null;
  spends_tokens: boolean | null;
  /** the executor process started (a session exists and may have spent tokens) */
  ran: boolean;
  status: string | null;
  decision: BudgetDecision | null;
  session: { run_id: string; manifest_path: string; status: string; exit_code: number | null; files: string[]; prompt_sha256?: string; os_sandbox?: SandboxSummary | null } | null;
  usage: ProviderUsage | null;
  last_message: string | null;
  tasks: TaskSummary[];
  /** work keys finished this cycle (they leave the pending list) */
  done: string[];
}

export interface ActContext {
  profile: PersonaProfile;
  paths: PersonaPaths;
  /** The persona's local task ledger, in its persistence backend's format. */
  ledger: Pick<LedgerAccess, 'open'>;
  plugins: StepPlugins;
  choice: ExecutorChoice;
  /** the chosen executor's own config (executor.config.<its id>, or {}) */
  executorConfig: Record<string, unknown>;
  posture: BudgetPosture;
  cycle: number;
  phase: string;
  work: WorkItem[];
  skills: readonly SkillMeta[];
  history: readonly RecentCycle[];
  spendTokens: boolean;
  now: number;
  /** the persona's subprocess tracker: session attribution, stops, crash markers */
  children?: PersonaChildren;
  /** the MCP server handed to the harness (LoopOptions.mcpServer), if any */
  mcp?: McpServerSpec | null;
  /** the persona's tools (what the session's manifest records of them) */
  tools?: PersonaContext['tools'];
  /** values scrubbed from error text before it is recorded (the persona's secret variables) */
  secrets?: readonly string[];
}

export { errorLine } from '../../kernel/errors.ts';

function sourceText(source: ExecutorChoice['enabled_source']): string {
  return source === 'env' ? 'SCIDEX_AGENT_CONTINUOUS_EXECUTOR_ENABLED=0' : source === 'profile' ? 'the profile disables it' : 'the compatibility-harness default';
}

export async function act(c: ActContext): Promise<ActResult> {
  const r: ActResult = { outcome: 'deferred', reason: null, spends_tokens: null, ran: false, status: null, decision: null, session: null, usage: null, last_message: null, tasks: [], done: [] };
  const stop = (outcome: Outcome, reason: string): ActResult => ({ ...r, outcome, reason });

  if (c.work.length === 0) return stop('idle', 'nothing to do: no new work packet, direct message or cadence slot');
  if (!c.choice.enabled) return stop('deferred', `executor ${c.choice.plugin} is disabled (${sourceText(c.choice.enabled_source)})`);

  let executor;
  try {
    executor = c.plugins.get(c.choice.plugin, 'executor');
    const description = checkPluginAnswer(executorDescriptionSchema, await executor.call('describe', c.executorConfig), c.choice.plugin, 'describe');
    r.spends_tokens = description.spends_tokens;
  } catch (error) {
    return stop('failed', `executor ${c.choice.plugin}: ${errorLine(error)}`);
  }
  if (r.spends_tokens) {
    const hard = hardStop(c.posture);
    if (hard !== undefined) return planned(c, stop('deferred', hard));
  }

  const policyId = c.profile.budget.policy;
  try {
    const policy = c.plugins.get(policyId, 'budget-policy');
    const answer = await policy.call('assess', {
      persona_id: c.profile.id,
      phase: c.phase,
      work: c.work.map(({ body: _body, ...w }) => w),
      executor: { plugin: c.choice.plugin, spends_tokens: r.spends_tokens },
      posture: c.posture,
      history: c.history.slice(-10).map((h) => ({ keys: h.keys, outcome: h.outcome, ...(h.status ? { status: h.status } : {}) })),
      config: c.profile.budget.config,
    });
    r.decision = checkPluginAnswer(budgetDecisionSchema, answer, policyId, 'assess');
  } catch (error) {
    return stop('failed', `budget policy ${policyId}: ${errorLine(error)}`);
  }
  const d = r.decision;
  if (d.action === 'reviewer_handoff') {
    try {
      r.tasks = ledgerTasks(c, 'Reviewer handoff', `${d.reason}\nDecision: ${d.decision}`);
    } catch (error) {
      return stop('failed', `reviewer handoff: ${errorLine(error)}`);
    }
    r.done = c.work.filter((w) => w.kind !== 'periodic').map((w) => w.key);
    return stop('deferred', `reviewer handoff (tier ${d.tier}): ${d.reason}`);
  }
  if (d.action === 'read_only_planning') return planned(c, stop('deferred', `read-only planning (tier ${d.tier} considered): ${d.reason}`));
  if (r.spends_tokens && !c.spendTokens) {
    return stop('deferred', `not launched: token-spending executors are off for this run (--no-spend); the policy approved tier ${d.tier} (${d.tier_name}) at ~${d.expected_cost.tokens} tokens`);
  }
  return run(c, r, executor);
}

/** The harness's error text as recorded: secrets by pattern and by value taken out, one line. */
function scrubbed(c: ActContext, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  let out = scrubString(text);
  for (const secret of c.secrets ?? []) if (secret.length >= 6) out = out.split(secret).join('[REDACTED]');
  return out;
}

function summarize(records: readonly SandboxRecord[]): SandboxSummary | null {
  if (records.length === 0) return null;
  const uniq = (xs: string[]) => [...new Set(xs)].slice(0, 20);
  return {
    mode: records.some((r) => r.mode === 'off') ? 'off' : 'bubblewrap',
    children: records.length,
    leftover: records.reduce((n, r) => n + (r.leftover ?? 0), 0),
    net_granted: uniq(records.flatMap((r) => r.net?.granted ?? [])),
    net_denied: uniq(records.flatMap((r) => r.net?.denied ?? [])),
  };
}

async function run(c: ActContext, r: ActResult, executor: ReturnType<StepPlugins['get']>): Promise<ActResult> {
  if (c.children?.registry.stopping) return { ...r, outcome: 'deferred', reason: 'the kernel is stopping: no new executor session' };
  const { runId, dir } = allocateRunId(c.paths.stateDir, c.paths.sessionsDir, c.cycle, c.choice.plugin);
  // The session's command may write this folder: the kernel reaches it only from the state directory, following no link.
  const folder: SessionFolder = { anchor: c.paths.stateDir, dir };
  const manifestPath = relToState(c.paths, path.join(dir, 'manifest.json'));
  const session = (status: string, exit: number | null, files: string[], extra: Partial<NonNullable<ActResult['session']>> = {}) => ({ run_id: runId, manifest_path: manifestPath, status, exit_code: exit, files, ...extra });
  const home = providerHomeDir(c.paths.dir, c.choice.plugin);
  try {
    preparePersonaWorkspace(c.paths.stateDir, c.paths.workspaceRoot, c.profile.id, WORKSPACE_ID, c.skills);
    ensureProviderHome(c.paths.stateDir, c.paths.dir, home);
  } catch (error) {
    const reason = `${isKernelError(error) && error.code === 'RTC_ERR_EXECUTOR_PROVIDER_HOME' ? '' : 'workspace: '}${errorLine(error)}`;
    writeFallbackManifest(folder, { run_id: runId, executor: c.choice.plugin, status: 'failed', reason });
    return { ...r, outcome: 'failed', reason, session: session('failed', null, ['manifest.json']) };
  }
  const publicWrites = c.profile.public_writes && !c.posture.read_only;
  const prompt = buildPrompt({
    personaId: c.profile.id,
    runtime: c.profile.runtime,
    cycle: c.cycle,
    phase: c.phase,
    decision: r.decision,
    maxTokensPerSession: c.posture.max_tokens_per_session,
    publicWrites,
    skills: c.skills,
    work: c.work,
  });
  const promptSha = `sha256:${createHash('sha256').update(prompt).digest('hex')}`;
  const sandbox: SessionSandbox = { mode: c.profile.os_sandbox === 'off' ? 'off' : 'bubblewrap', net: subprocessNet(c.plugins.gate(c.choice.plugin, 'executor')) };
  const input: ExecutorInput = {
    run_id: runId,
    persona_id: c.profile.id,
    runtime: c.profile.runtime,
    phase: c.phase,
    prompt,
    prompt_sha256: promptSha,
    sandbox,
    mcp: c.mcp ?? null,
    work: c.work,
    config: c.executorConfig,
    paths: {
      session_dir: dir,
      workspace_dir: workspaceDir(c.paths),
      session_rel: relToState(c.paths, dir),
      ledger_db_rel: relToState(c.paths, path.join(c.paths.orchestraDir, 'orchestra.db')),
      provider_home: home,
    },
    limits: { wall_seconds: c.posture.wall_seconds_per_cycle, max_tokens_per_session: c.posture.max_tokens_per_session },
    decision: r.decision,
  };
  let result;
  let records: SandboxRecord[] = [];
  const toolsBefore = c.tools?.calls().length ?? 0;
  // The executor's `${session}` (its grant, and so its command's OS sandbox) is this session's folder alone.
  c.plugins.bindSession(dir);
  c.children?.beginSession({ runId, dir, expectedTokens: r.decision?.expected_cost.tokens ?? 0, executor: c.choice.plugin, stateDir: c.paths.stateDir, personaId: c.profile.id });
  // The agent's MCP calls while it runs (a proposal among them) are recorded as this session's.
  c.tools?.session?.({ run_id: runId, executor: c.choice.plugin });
  const fallback = (status: FallbackFields['status'], reason: string | null, exit: number | null = null): FallbackFields => ({ run_id: runId, executor: c.choice.plugin, status, reason, exit_code: exit, prompt_sha256: promptSha });
  try {
    result = checkPluginAnswer(executorResultSchema, await executor.call('run', input), c.choice.plugin, 'run');
  } catch (error) {
    c.tools?.session?.(null);
    records = c.children?.endSession() ?? [];
    c.plugins.bindSession(null);
    const reason = scrubbed(c, `executor ${c.choice.plugin}: ${errorLine(error)}`)!;
    writeFallbackManifest(folder, fallback('failed', reason));
    await noteSessionTools(c, folder, toolsBefore, fallback('failed', reason));
    // The plugin may have died with its command still counted against the budget: charge the estimate.
    return { ...r, outcome: 'failed', reason, ran: true, status: 'failed', session: session('failed', null, ['manifest.json'], { prompt_sha256: promptSha, os_sandbox: summarize(records) }), usage: estimated(r.decision) };
  }
  c.tools?.session?.(null);
  records = c.children?.endSession() ?? records;
  c.plugins.bindSession(null);
  // What the plugin wrote is checked against the one session-manifest schema; one missing or malformed is replaced (and kept).
  checkSessionManifest(folder, fallback(result.status, scrubbed(c, result.reason) ?? null, result.exit_code ?? null));
  await noteSessionTools(c, folder, toolsBefore, fallback(result.status, scrubbed(c, result.reason) ?? null, result.exit_code ?? null));
  const osSandbox = summarize(records);
  const stopped = c.children?.stopped.get(runId);
  if (stopped) {
    // Stopped by the kernel (SIGTERM, a second SIGINT): what it printed so far is its usage,
    // its work stays pending for the next start.
    const usage = result.usage ?? estimated(r.decision);
    const how = stopped === 'killed' ? 'it ignored TERM and was killed (KILL) after the delay' : 'it ended on TERM';
    const reason = `interrupted: the kernel was stopped while the session ran; ${how}; its work stays pending`;
    markSessionManifest(folder, { status: 'interrupted', reason, interrupted_by: stopped === 'killed' ? 'kernel stop (forced kill)' : 'kernel stop', usage }, fallback('interrupted', reason, result.exit_code ?? null));
    return {
      ...r,
      outcome: 'interrupted',
      reason,
      ran: true,
      status: 'interrupted',
      session: session('interrupted', result.exit_code ?? null, result.files, { prompt_sha256: promptSha, os_sandbox: osSandbox }),
      usage,
      last_message: result.last_message ?? null,
      tasks: result.tasks,
      done: [],
    };
  }
  const ran = result.status === 'ok' || result.status === 'failed' || result.status === 'timed_out' || result.status === 'interrupted';
  // A session killed at its wall limit printed no usage but may have spent tokens: charge the estimate.
  const usage = result.usage ?? (result.status === 'timed_out' ? estimated(r.decision) : null);
  return {
    ...r,
    outcome: result.status === 'ok' ? 'executed' : result.status === 'skipped' ? 'deferred' : 'failed',
    reason: scrubbed(c, result.reason) ?? null,
    ran,
    status: result.status,
    session: session(result.status, result.exit_code ?? null, result.files, { prompt_sha256: promptSha, os_sandbox: osSandbox }),
    usage,
    last_message: result.last_message ?? null,
    tasks: result.tasks,
    done: result.work_done.filter((k) => c.work.some((w) => w.key === k)),
  };
}

/**
 * What the session's manifest records of the persona's tools, when its harness was handed the
 * MCP server: the server, the tools it offers, and each call made while the session ran (tool,
 * who asked, ok or the error's code, and the seq of its `tool_call` event, where the call's
 * arguments, outcome and usage are).
 */
async function noteSessionTools(c: ActContext, folder: SessionFolder, before: number, fallback: FallbackFields): Promise<void> {
  if (!c.mcp || !c.tools) return;
  const calls = c.tools.calls().slice(before);
  markSessionManifest(folder, {
    tools: {
      server: c.mcp.name,
      offered: await c.tools.offered(),
      called: [...new Set(calls.map((call) => call.tool))],
      calls: calls.map((call) => ({ tool: call.tool, via: call.via, ok: call.ok, ...(call.ok ? {} : { code: call.code }), event_seq: call.seq })),
    },
  }, fallback);
}

function estimated(decision: BudgetDecision | null): ProviderUsage | null {
  if (!decision || decision.expected_cost.tokens === 0) return null;
  return estimateUsage(decision.expected_cost.tokens);
}

/** The usage charged to a session that printed none (killed, interrupted): the policy's estimate. */
export function estimateUsage(tokens: number): ProviderUsage {
  return {
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    reasoning_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    total_tokens: tokens,
    source: 'estimate (no usage printed)',
  };
}

/**
 * Read-only planning: each queued item gets one `Planned:` task in the persona's own ledger
 * (once: an open task with the same title is left alone) and stays queued for a funded
 * cycle. Task creation is what a read-only posture still allows.
 */
function planned(c: ActContext, r: ActResult): ActResult {
  try {
    return { ...r, tasks: ledgerTasks(c, 'Planned', `Deferred: ${r.reason ?? ''}`) };
  } catch (error) {
    return { ...r, reason: `${r.reason}; planning tasks could not be written (${errorLine(error)})` };
  }
}

/** One task per queued (non-periodic) item in the persona's own ledger, unless one with that title is open. */
function ledgerTasks(c: ActContext, prefix: string, why: string): TaskSummary[] {
  const items = c.work.filter((w) => w.kind !== 'periodic');
  if (items.length === 0) return [];
  const { store } = c.ledger.open();
  try {
    const open = new Set(store.listTasks().filter((t) => t.state !== 'accepted').map((t) => t.title));
    const created: TaskSummary[] = [];
    for (const w of items) {
      const title = `${prefix}: ${w.title}`.slice(0, 200);
      if (open.has(title)) continue;
      const task = store.addTask({ title, description: `${why}\nWork key: ${w.key}`.slice(0, 2000), by: `loop:${c.profile.id}`, now: c.now });
      created.push({ id: task.id, title: task.title, state: task.state });
    }
    return created;
  } finally {
    store.close();
  }
}
