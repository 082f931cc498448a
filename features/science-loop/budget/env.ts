/**
 * The operator's environment overrides, read and checked once when the kernel starts.
 * A bad value stops the start with one line naming the variable: a typo in a budget must
 * never turn into "unlimited" or "zero" silently. An empty value counts as unset.
 */
import { kernelError } from '../../../kernel/errors.ts';
import { didYouMean } from '../../profiles/suggest.ts';
import { STATE_DIR_ENV } from '../../persistence/state/state-dir.ts';

/** Budget fields the environment may override, by variable name. */
export const BUDGET_ENV = {
  daily_tokens: 'SCIDEX_AGENT_DAILY_TOKEN_BUDGET',
  max_tokens_per_session: 'SCIDEX_AGENT_MAX_TOKENS_PER_SESSION',
  min_tokens_remaining_for_executor: 'SCIDEX_AGENT_MIN_TOKENS_REMAINING_FOR_EXECUTOR',
  max_autonomous_sessions_per_day: 'SCIDEX_AGENT_MAX_AUTONOMOUS_SESSIONS_PER_DAY',
  cpu_seconds_per_cycle: 'SCIDEX_AGENT_CPU_SECONDS_PER_CYCLE',
  wall_seconds_per_cycle: 'SCIDEX_AGENT_WALL_SECONDS_PER_CYCLE',
} as const;

export type BudgetField = keyof typeof BUDGET_ENV;

export const EXECUTOR_ENV = 'SCIDEX_AGENT_CONTINUOUS_EXECUTOR';
export const EXECUTOR_ENABLED_ENV = 'SCIDEX_AGENT_CONTINUOUS_EXECUTOR_ENABLED';
export { STATE_DIR_ENV };

/** The executors that ship with runtimectl (any installed executor plugin can be named). */
export const EXECUTOR_NAMES = ['none', 'orchestra', 'codex', 'claude', 'command'] as const;

/** A short name (`codex` → executor.codex) or a whole plugin id (`executor.codex`, `acme.runner`). */
const EXECUTOR_REF = /^([a-z][a-z0-9-]*)(\.[a-z][a-z0-9-]*)*$/;

/** Token and session counts are whole numbers; seconds may be fractional but must be above zero. */
const INTEGER_FIELDS: ReadonlySet<BudgetField> = new Set(['daily_tokens', 'max_tokens_per_session', 'min_tokens_remaining_for_executor', 'max_autonomous_sessions_per_day']);

export interface AgentEnv {
  budget: Partial<Record<BudgetField, number>>;
  /** the plugin id SCIDEX_AGENT_CONTINUOUS_EXECUTOR names (`codex` → executor.codex); whether it is installed is checked per persona at start */
  executorPlugin?: string;
  executorEnabled?: boolean;
}

function invalid(name: string, value: string, expected: string): never {
  throw kernelError('RTC_ERR_ENV_INVALID', `${name}=${JSON.stringify(value)} is not ${expected}; fix or unset it`, { details: { variable: name, value } });
}

function parseNumber(name: string, raw: string, integer: boolean): number {
  const text = raw.trim();
  const pattern = integer ? /^\d+$/ : /^(\d+(\.\d+)?|\.\d+)$/;
  if (!pattern.test(text)) invalid(name, raw, integer ? 'a whole number of zero or more' : 'a number of seconds above zero');
  const value = Number(text);
  if (!Number.isSafeInteger(Math.floor(value))) invalid(name, raw, 'a number in range');
  if (!integer && value <= 0) invalid(name, raw, 'a number of seconds above zero');
  return value;
}

/** Every SCIDEX_AGENT_* variable the kernel reads; any other one is a typo (or from a newer version). */
export const KNOWN_AGENT_ENV: readonly string[] = [...Object.values(BUDGET_ENV), EXECUTOR_ENV, EXECUTOR_ENABLED_ENV, STATE_DIR_ENV];

/**
 * Refuses a SCIDEX_AGENT_* variable the kernel does not read: `SCIDEX_AGENT_DAILY_TOKEN_BUGDET`
 * would otherwise leave the budget it meant to set at the profile's value, silently.
 */
export function refuseUnknownAgentEnv(env: Readonly<Record<string, string | undefined>>): void {
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('SCIDEX_AGENT_') || KNOWN_AGENT_ENV.includes(name)) continue;
    throw kernelError('RTC_ERR_ENV_INVALID', `${name}${didYouMean(name, KNOWN_AGENT_ENV)} is not a variable runtimectl reads (it reads ${KNOWN_AGENT_ENV.join(', ')}); fix or unset it`, {
      details: { variable: name },
    });
  }
}

/** Reads every override; throws RTC_ERR_ENV_INVALID naming the first bad (or unknown) variable. */
export function readAgentEnv(env: Readonly<Record<string, string | undefined>>): AgentEnv {
  refuseUnknownAgentEnv(env);
  const out: AgentEnv = { budget: {} };
  for (const [field, name] of Object.entries(BUDGET_ENV) as [BudgetField, string][]) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') continue;
    out.budget[field] = parseNumber(name, raw, INTEGER_FIELDS.has(field));
  }
  const executor = env[EXECUTOR_ENV]?.trim();
  if (executor) {
    if (!EXECUTOR_REF.test(executor)) invalid(EXECUTOR_ENV, executor, `an executor name (${EXECUTOR_NAMES.join(', ')}, or any installed executor.<name>) or plugin id`);
    out.executorPlugin = executor.includes('.') ? executor : `executor.${executor}`;
  }
  const enabled = env[EXECUTOR_ENABLED_ENV]?.trim();
  if (enabled) {
    if (enabled !== '0' && enabled !== '1') invalid(EXECUTOR_ENABLED_ENV, enabled, '0 or 1');
    out.executorEnabled = enabled === '1';
  }
  return out;
}

/** The variable names that were set, for the event (values of budgets are logged by the posture itself). */
export function overriddenFields(agentEnv: AgentEnv): string[] {
  const names: string[] = (Object.keys(agentEnv.budget) as BudgetField[]).map((f) => BUDGET_ENV[f]);
  if (agentEnv.executorPlugin !== undefined) names.push(EXECUTOR_ENV);
  if (agentEnv.executorEnabled !== undefined) names.push(EXECUTOR_ENABLED_ENV);
  return names;
}
