/**
 * executor.codex: `codex exec --json --skip-git-repo-check [--model M] [config.args...] PROMPT`
 * in the persona workspace. Config: `command` (default `codex`), `model`, `args`.
 */
import { stringList, stringOr, type ExecutorInput, type ExecutorResult } from '../executor-shared/contract.ts';
import { runCli } from '../executor-shared/session.ts';
import { parseCodex } from '../executor-shared/usage.ts';

export function describe(config: Record<string, unknown> = {}): { spends_tokens: boolean; command: string } {
  return { spends_tokens: true, command: stringOr(config.command, 'codex') };
}

export function run(input: ExecutorInput): Promise<ExecutorResult> {
  const command = stringOr(input.config.command, 'codex');
  const model = typeof input.config.model === 'string' ? ['--model', input.config.model] : [];
  const args = ['exec', '--json', '--skip-git-repo-check', ...model, ...stringList(input.config.args), input.prompt];
  return runCli(input, { plugin: 'executor.codex', command, args, prompt: input.prompt, parse: parseCodex });
}
