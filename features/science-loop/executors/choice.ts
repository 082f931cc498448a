/**
 * Which executor plugin a persona runs, and whether it is on: the environment overrides the
 * profile, and the profile overrides its harness's default (policies/harnesses: the canonical
 * loop defaults to executor.orchestra, enabled; compatibility harnesses to an executor that
 * is off). The choice depends on manifests only, never on who the persona is. The chosen
 * executor runs with its own config from the profile (or its defaults), never another's.
 */
import type { AgentEnv } from '../budget/env.ts';
import type { PersonaProfile } from '../../../kernel/personas/profile-schema.ts';
import { executorConfigFor } from '../../profiles/profile-slots.ts';
import type { HarnessManifest } from '../../../kernel/loop/harness.ts';

export type ChoiceSource = 'env' | 'profile' | 'runtime_default';

export interface ExecutorChoice {
  plugin: string;
  enabled: boolean;
  /** `runtime_default`: the harness's default */
  plugin_source: ChoiceSource;
  enabled_source: ChoiceSource;
}

/** With neither a profile choice nor a harness default: the executor that does nothing, off. */
const NO_EXECUTOR = { plugin: 'executor.none', enabled: false } as const;

export function chooseExecutor(profile: PersonaProfile, agentEnv: AgentEnv, harness: Pick<HarnessManifest, 'defaults'>): ExecutorChoice {
  const fallback = harness.defaults.executor ?? NO_EXECUTOR;
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

/** The config the chosen executor runs with (its own entry in the profile, or its defaults). */
export function executorConfig(profile: PersonaProfile, choice: ExecutorChoice): Record<string, unknown> {
  return executorConfigFor(profile, choice.plugin);
}
