/**
 * Issue 24 item 7: `executor.command` with no config, or a bad one, is refused when the persona
 * starts (one line per problem naming the profile's file and field), not when work arrives.
 * The executor names its own problems (describe's config_problems); the kernel words the field.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../../../test/support/cli.ts';
import { fakeEnv, tempDir } from './helpers.ts';
import { shownPath } from '../../../kernel/shown-path.ts';

function write(dir: string, id: string, executor: string): void {
  writeFileSync(path.join(dir, `${id}.yaml`), `id: ${id}\nruntime: agent-${id}\n${executor}`);
}

test('executor.command: no config, or a bad one, refuses the persona at start with every problem; the others run', async () => {
  const dir = tempDir('rtc-exec-config-');
  write(dir, 'bare', 'executor: { plugin: executor.command }\n');
  write(dir, 'bad', 'executor:\n  plugin: executor.command\n  config: { command: "", args: ["--in", "{prompt}", 7], usage_format: xml, spend_tokens: false }\n');
  write(dir, 'keyed', 'executor:\n  plugin: executor.command\n  config:\n    executor.command: { args: "x" }\n');
  write(dir, 'good', 'executor:\n  plugin: executor.command\n  config: { command: sh, args: ["-c", "true"], spends_tokens: false }\nos_sandbox: off\n');
  const o = { cwd: dir, env: fakeEnv() };
  const r = await runCli(['run', '--persona', 'bare.yaml', 'bad.yaml', 'keyed.yaml', 'good.yaml', '--cycles', '1', '--state-dir', 'state', '--no-spend'], o);
  assert.equal(r.status, 1);
  const lines = r.stderr.trimEnd().split('\n').map((l) => l.replace(/^runtimectl: RTC_ERR_PERSONA_START: /, ''));
  assert.deepEqual(lines, [
    'persona bare: bare.yaml: executor.config.command: is required: the program to run (a name on PATH, or a path), e.g. command: ./agent.sh',
    'persona bad: bad.yaml: executor.config.command: must be a non-empty string: the program to run',
    'persona bad: bad.yaml: executor.config.args[1]: {prompt} is refused (argv is visible to every user in ps): the prompt is on stdin, or use {prompt_file}',
    'persona bad: bad.yaml: executor.config.args[2]: must be a string',
    'persona bad: bad.yaml: executor.config.usage_format: must be one of codex-json, claude-stream-json, codex-stderr, none (got "xml")',
    'persona bad: bad.yaml: executor.config.spend_tokens: unknown key (executor.command reads command, args, usage_format, spends_tokens)',
    'persona keyed: keyed.yaml: executor.config["executor.command"].command: is required: the program to run (a name on PATH, or a path), e.g. command: ./agent.sh',
    'persona keyed: keyed.yaml: executor.config["executor.command"].args: must be a list of strings (the program\'s arguments)',
  ].map((l) => l.replace(/^persona (\w+): (\w+\.yaml)/, (_, id: string, f: string) => `persona ${id}: ${shownPath(path.join(dir, f))}`)));
  // The refused ones wrote nothing; the good one ran its cycle.
  for (const id of ['bare', 'bad', 'keyed']) assert.equal(existsSync(path.join(dir, 'state', id, 'logs')), false, id);
  assert.match(r.stdout, /^good #1 /m);

  // Picked by the environment: the line says where that executor's config belongs.
  const env = await runCli(['run', '--persona', 'good.yaml', '--cycles', '1', '--state-dir', 'state'], { cwd: dir, env: fakeEnv({ SCIDEX_AGENT_CONTINUOUS_EXECUTOR: 'command' }) });
  assert.equal(env.status, 0, 'the flat config belongs to executor.command, the profile\'s own executor');
  write(dir, 'other', 'executor: { plugin: executor.none }\n');
  const picked = await runCli(['run', '--persona', 'other.yaml', '--cycles', '1', '--state-dir', 'state'], { cwd: dir, env: fakeEnv({ SCIDEX_AGENT_CONTINUOUS_EXECUTOR: 'command', SCIDEX_AGENT_CONTINUOUS_EXECUTOR_ENABLED: '1' }) });
  assert.equal(picked.status, 1);
  assert.match(picked.stderr, /persona other: \S*other\.yaml: executor\.config\["executor\.command"\]\.command: is required: .* \(SCIDEX_AGENT_CONTINUOUS_EXECUTOR picks executor\.command: its config is executor\.config\["executor\.command"\] of the profile\)\n$/);
});
