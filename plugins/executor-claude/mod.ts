/**
 * executor.claude: `claude -p --output-format stream-json --verbose [--model M]
 * [config.args...] PROMPT` in the persona workspace. Config: `command` (default `claude`),
 * `model`, `args`.
 */
import { stringList, stringOr, type ExecutorInput, type ExecutorResult } from '../executor-shared/contract.ts';
import { runCli } from '../executor-shared/session.ts';
import { parseClaude } from '../executor-shared/usage.ts';

export function describe(config: Record<string, unknown> = {}): { spends_tokens: boolean; command: string } {
  return { spends_tokens: true, command: stringOr(config.command, 'claude') };
}

export function run(input: ExecutorInput): Promise<ExecutorResult> {
  const command = stringOr(input.config.command, 'claude');
  const model = typeof input.config.model === 'string' ? ['--model', input.config.model] : [];
  const args = ['-p', '--output-format', 'stream-json', '--verbose', ...model, ...stringList(input.config.args), input.prompt];
  return runCli(input, { plugin: 'executor.claude', command, args, prompt: input.prompt, parse: (stdout) => parseClaude(stdout) });
}
