/**
 * Which executor plugin a persona runs, and whether it is on: the environment overrides
 * the profile, and the profile overrides the default of its runtime kind (canonical
 * `agent-*` targets: executor.orchestra, enabled; compatibility harnesses: executor.none,
 * disabled). The choice depends on the runtime kind only, never on who the persona is.
 */
import type { AgentEnv } from '../budget/env.ts';
import { runtimeKindOf, type PersonaProfile } from '../../../kernel/personas/profile-schema.ts';

export type ChoiceSource = 'env' | 'profile' | 'runtime_default';

export interface ExecutorChoice {
  plugin: string;
  enabled: boolean;
  plugin_source: ChoiceSource;
  enabled_source: ChoiceSource;
}

export const RUNTIME_DEFAULTS = {
  canonical: { plugin: 'executor.orchestra', enabled: true },
  compatibility_harness: { plugin: 'executor.none', enabled: false },
} as const;

export function chooseExecutor(profile: PersonaProfile, agentEnv: AgentEnv): ExecutorChoice {
  const fallback = RUNTIME_DEFAULTS[runtimeKindOf(profile.runtime)];
  const plugin =
    agentEnv.executorPlugin !== undefined
      ? { value: agentEnv.executorPlugin, source: 'env' as const }
      : profile.executor.plugin !== undefined
        ? { value: profile.executor.plugin, source: 'profile' as const }
        : { value: fallback.plugin, source: 'runtime_default' as const };
  const enabled =
    agentEnv.executorEnabled !== undefined
      ? { value: agentEnv.executorEnabled, source: 'env' as const }
      : profile.executor.enabled !== undefined
        ? { value: profile.executor.enabled, source: 'profile' as const }
        : { value: fallback.enabled, source: 'runtime_default' as const };
  return { plugin: plugin.value, enabled: enabled.value, plugin_source: plugin.source, enabled_source: enabled.source };
}
