/**
 * `runtimectl tools list|call` in process, `runtimectl mcp serve` as the real program over
 * stdio (one spawn: what an operator's MCP client starts), the bridge a harness starts when it
 * cannot reach the kernel, the budget on a session's tool calls, and bad input.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { runCli } from '../../../test/support/cli.ts';
import { ROOT, tempDir, toolPersona, wordsPlugin } from './fixtures.ts';

function setup(budget = '') {
  const dir = tempDir();
  const plugins = path.join(dir, 'plugins');
  wordsPlugin(plugins);
  const persona = toolPersona(dir, 'ada', ['tool.words'], '', budget);
  const flags = ['--persona', persona, '--state-dir', path.join(dir, 'state'), '--plugins-dir', plugins];
  return { dir, plugins, persona, flags, env: { PATH: process.env.PATH } };
}

test('tools list and tools call: the persona\'s tools with their schemas, one call through the same path, failures exit 1 with the line', async () => {
  const s = setup();
  const listed = await runCli(['tools', 'list', ...s.flags, '--json'], { cwd: s.dir, env: s.env });
  assert.equal(listed.status, 0, listed.stderr);
  const doc = JSON.parse(listed.stdout);
  assert.deepEqual(doc.tools.map((t: { name: string }) => t.name), ['tool.words.count', 'tool.words.boom', 'tool.words.spin', 'tool.words.peek']);
  assert.equal(doc.tools[0].source, 'plugin');
  assert.deepEqual(doc.tools[0].input_schema.required, ['text']);
  const text = await runCli(['tools', 'list', ...s.flags], { cwd: s.dir, env: s.env });
  assert.match(text.stdout, /^tool\.words\.count {2}\[plugin tool\.words\] {2}How many words a text has\.$/m);

  const called = await runCli(['tools', 'call', ...s.flags, 'tool.words.count', '--args', '{"text":"a b c d"}', '--json'], { cwd: s.dir, env: s.env });
  assert.equal(called.status, 0, called.stderr);
  assert.equal(JSON.parse(called.stdout).result.words, 4);

  const denied = await runCli(['tools', 'call', ...s.flags, 'tool.words.peek'], { cwd: s.dir, env: s.env });
  assert.equal(denied.status, 1);
  assert.match(denied.stderr, /^runtimectl: RTC_ERR_SANDBOX_SCRIPT: NotCapable: Requires read access to "\/etc\/hostname"/);
  const bad: [string[], RegExp][] = [
    [['tools', 'call', ...s.flags, 'tool.words.count', '--args', '{nope'], /RTC_ERR_CLI_USAGE: --args: not JSON/],
    [['tools', 'call', ...s.flags, 'tool.words.count', '--args', '[1]'], /RTC_ERR_CLI_USAGE: --args: must be a JSON object/],
    [['tools', 'call', ...s.flags], /RTC_ERR_CLI_USAGE: name exactly one tool \(got 0\)/],
    [['tools', 'list'], /RTC_ERR_CLI_USAGE: --persona ID_OR_FILE is required/],
    [['tools', 'list', '--persona', 'no-such-persona-here'], /RTC_ERR_PERSONA_NOT_FOUND/],
    [['mcp', 'serve', ...s.flags, '--bogus'], /RTC_ERR_CLI_USAGE: .*--bogus/],
  ];
  for (const [argv, expected] of bad) {
    const r = await runCli(argv, { cwd: s.dir, env: s.env });
    assert.equal(r.status, /NOT_FOUND/.test(expected.source) ? 1 : 2, `${argv.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, expected);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
});

test('the tool calls of a session count against the persona\'s CPU seconds per cycle: once spent, a call is RTC_ERR_TOOL_BUDGET', async () => {
  const s = setup();
  // a profile with half a CPU second a cycle; spin burns its plugin's 300 ms limit each call
  const persona = toolPersona(s.dir, 'bea', ['tool.words'], '', '');
  const { writeFileSync, readFileSync } = await import('node:fs');
  writeFileSync(persona, readFileSync(persona, 'utf8').replace('budget: { daily_tokens: 1000 }', 'budget: { daily_tokens: 1000, cpu_seconds_per_cycle: 0.5 }'));
  const { openToolSource } = await import('../tool-source.ts');
  const { openLoopKernel } = await import('../../science-loop/preset.ts');
  const { testIo } = await import('./fixtures.ts');
  const source = await openToolSource({ openKernel: openLoopKernel, persona, stateDir: path.join(s.dir, 'state'), pluginsDirs: [s.plugins], via: 'cli' }, testIo(s.dir));
  try {
    const errors: string[] = [];
    for (let i = 0; i < 4; i++) {
      try {
        await source.call('tool.words.spin', {});
      } catch (error) {
        errors.push(`${(error as { code?: string }).code}`);
      }
    }
    assert.equal(errors.length, 4);
    assert.ok(errors.includes('RTC_ERR_TOOL_BUDGET'), errors.join(', '));
    assert.notEqual(errors[0], 'RTC_ERR_TOOL_BUDGET', 'the first call runs');
    await assert.rejects(source.call('tool.words.count', { text: 'x' }), /RTC_ERR_TOOL_BUDGET|spent the cycle's CPU time/);
  } finally {
    await source.close();
  }
});

test('runtimectl mcp serve over stdio (no kernel running: the persona opened here) answers an SDK client', async () => {
  const s = setup();
  const transport = new StdioClientTransport({ command: process.execPath, args: ['--no-node-snapshot', path.join(ROOT, 'bin', 'runtimectl.js'), 'mcp', 'serve', ...s.flags], cwd: s.dir, env: { PATH: process.env.PATH ?? '', HOME: s.dir }, stderr: 'pipe' });
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(transport);
  try {
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name).slice(0, 1), ['tool.words.count']);
    const r = await client.callTool({ name: 'tool.words.count', arguments: { text: 'x y' } });
    assert.equal(JSON.parse((r.content as { text: string }[])[0]!.text).words, 2);
    const e = await client.callTool({ name: 'tool.words.boom', arguments: {} });
    assert.equal(e.isError, true);
  } finally {
    await client.close();
  }
});

test('runtimectl mcp serve with its input piped: every request read is answered, then the end of input ends it with status 0', () => {
  const s = setup();
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'tool.words.count', arguments: { text: 'a b c' } } },
  ];
  // spawnSync writes the input and closes stdin at once: the call is still running when the input ends
  const run = spawnSync(process.execPath, ['--no-node-snapshot', path.join(ROOT, 'bin', 'runtimectl.js'), 'mcp', 'serve', ...s.flags], { cwd: s.dir, env: { PATH: process.env.PATH ?? '', HOME: s.dir }, input: lines.map((l) => `${JSON.stringify(l)}\n`).join(''), encoding: 'utf8', timeout: 120_000 });
  assert.equal(run.status, 0, `status ${run.status} ${run.signal ?? ''}; stderr: ${run.stderr}`);
  const answers = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: number; result: Record<string, any> });
  assert.deepEqual(answers.map((a) => a.id), [1, 2, 3]);
  assert.equal(answers[1]!.result.tools[0].name, 'tool.words.count');
  assert.equal(JSON.parse(answers[2]!.result.content[0].text).words, 3);
});

test('the bridge a harness starts: no socket named, or a missing one, is one line on stderr and exit 1', () => {
  const bridge = path.join(ROOT, 'features', 'mcp', 'bridge.mjs');
  const run = (env: Record<string, string>) => spawnSync(process.execPath, [bridge], { env: { PATH: process.env.PATH ?? '', ...env }, input: '', encoding: 'utf8' });
  const unset = run({});
  assert.equal(unset.status, 1);
  assert.match(unset.stderr, /^runtimectl bridge: RUNTIMECTL_TOOLS_SOCKET is not set[^\n]*\n$/);
  const missing = run({ RUNTIMECTL_TOOLS_SOCKET: path.join(tempDir(), 'gone.sock') });
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /^runtimectl bridge: cannot reach the kernel's tool relay at \S+gone\.sock \(RUNTIMECTL_TOOLS_SOCKET\): ENOENT\n$/);
  assert.equal(missing.stdout, '');
});

test('a persona has one writer: a second tools-only session (or one while run runs it) is refused naming the holder', async () => {
  const s = setup();
  const { openToolSource } = await import('../tool-source.ts');
  const { openLoopKernel } = await import('../../science-loop/preset.ts');
  const { testIo } = await import('./fixtures.ts');
  const options = { openKernel: openLoopKernel, persona: s.persona, stateDir: path.join(s.dir, 'state'), pluginsDirs: [s.plugins], via: 'cli' as const };
  const first = await openToolSource(options, testIo(s.dir));
  try {
    await assert.rejects(openToolSource(options, testIo(s.dir)), (error: Error & { code?: string }) => error.code === 'RTC_ERR_PERSONA_LOCKED');
  } finally {
    await first.close();
  }
  // released on close: the next session opens
  const again = await openToolSource(options, testIo(s.dir));
  await again.close();
});
