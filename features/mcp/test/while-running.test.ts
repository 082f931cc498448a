/**
 * Issue 24 item 7: `tools list` only reads, so it works while `run` runs the persona; an
 * operator's `tools call` while `run` runs it is made by that kernel (its writer lock, its
 * log: no fork), and a `tools call` with no kernel running records its tool_call event and
 * nothing else (no `reboot`: no loop restarted). Issue 25 item 5: both talk MCP to the
 * kernel's operator socket, and `mcp serve` while `run` runs pipes to it (the persona is not
 * opened again: the running kernel holds its writer lock).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readLogFiles } from '../../history-segments/file-log.ts';
import { verifyEventLog } from '../../../kernel/events/verify.ts';
import { runCli } from '../../../test/support/cli.ts';
import { ROOT, tempDir, toolPersona, wordsPlugin } from './fixtures.ts';

function types(state: string, id: string): { type: string; payload: Record<string, unknown> }[] {
  return [...readLogFiles(path.join(state, id, 'logs', 'events.jsonl'))].map((e) => ({ type: e.type, payload: e.payload as Record<string, unknown> }));
}

test('while run runs the persona: tools list reads without the lock, tools call is made by the running kernel; one chain, no reboot', async () => {
  const dir = tempDir();
  const plugins = path.join(dir, 'plugins');
  wordsPlugin(plugins);
  const persona = toolPersona(dir, 'ada', ['tool.words']);
  const state = path.join(dir, 'state');
  const flags = ['--persona', persona, '--state-dir', state, '--plugins-dir', plugins];
  const env = { PATH: process.env.PATH };
  const child = spawn(process.execPath, ['--no-node-snapshot', path.join(ROOT, 'bin', 'runtimectl.js'), 'run', ...flags, '--every', '0.5'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c: Buffer) => void (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const pointer = path.join(state, 'ada', 'tools-relay.json');
    for (let i = 0; i < 600 && !existsSync(pointer); i++) await sleep(100);
    assert.ok(existsSync(pointer), `the running kernel names its operator relay (${err})`);

    const listed = await runCli(['tools', 'list', ...flags, '--json'], { cwd: dir, env });
    assert.equal(listed.status, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout).tools.map((t: { name: string }) => t.name), ['tool.words.count', 'tool.words.boom', 'tool.words.spin', 'tool.words.peek']);

    const called = await runCli(['tools', 'call', ...flags, 'tool.words.count', '--args', '{"text":"one two three"}', '--json'], { cwd: dir, env });
    assert.equal(called.status, 0, called.stderr);
    assert.equal(JSON.parse(called.stdout).result.words, 3);
    const failed = await runCli(['tools', 'call', ...flags, 'tool.words.boom'], { cwd: dir, env });
    assert.equal(failed.status, 1);
    assert.match(failed.stderr, /the tool broke/);

    // mcp serve bridges to the running kernel: an outside MCP client's calls are made there, via mcp
    const serve = new StdioClientTransport({ command: process.execPath, args: ['--no-node-snapshot', path.join(ROOT, 'bin', 'runtimectl.js'), 'mcp', 'serve', ...flags], cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir }, stderr: 'pipe' });
    const client = new Client({ name: 'operator', version: '1' });
    await client.connect(serve);
    try {
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['tool.words.count', 'tool.words.boom', 'tool.words.spin', 'tool.words.peek']);
      const r = await client.callTool({ name: 'tool.words.count', arguments: { text: 'a b c d' } });
      assert.equal(JSON.parse((r.content as { text: string }[])[0]!.text).words, 4);
    } finally {
      await client.close();
    }
  } finally {
    child.kill('SIGINT');
  }
  assert.equal(await exited, 0, err);
  assert.equal(existsSync(path.join(state, 'ada', 'tools-relay.json')), false, 'the pointer goes with the kernel');

  const events = types(state, 'ada');
  assert.equal(verifyEventLog(path.join(state, 'ada', 'logs', 'events.jsonl')).ok, true, 'one chain: the calls were appended by the one writer');
  const calls = events.filter((e) => e.type === 'tool_call');
  assert.deepEqual(calls.map((e) => [e.payload.tool, e.payload.via, e.payload.ok]), [['tool.words.count', 'cli', true], ['tool.words.boom', 'cli', false], ['tool.words.count', 'mcp', true]]);
  assert.equal(events.filter((e) => e.type === 'persona_start').length, 1);
  assert.equal(events.filter((e) => e.type === 'reboot').length, 0, 'neither the listing nor the calls restarted anything');

  // No kernel running: the call opens the persona here, and records the call and nothing else.
  const before = events.length;
  const alone = await runCli(['tools', 'call', ...flags, 'tool.words.count', '--args', '{"text":"a b"}'], { cwd: dir, env });
  assert.equal(alone.status, 0, alone.stderr);
  const after = types(state, 'ada');
  assert.deepEqual(after.slice(before).map((e) => `${e.type}:${String(e.payload.via ?? '')}`), ['tool_call:cli']);
  // A listing writes nothing at all.
  assert.equal((await runCli(['tools', 'list', ...flags], { cwd: dir, env })).status, 0);
  assert.equal(types(state, 'ada').length, after.length);
  // A pointer a killed kernel left behind (its process is gone) is ignored: the call is made here.
  writeFileSync(path.join(state, 'ada', 'tools-relay.json'), JSON.stringify({ socket: '/tmp/runtimectl-tools-gone/tools.sock', pid: 2 ** 22 + 17, start_ticks: 1 }));
  const stale = await runCli(['tools', 'call', ...flags, 'tool.words.count', '--args', '{"text":"x"}'], { cwd: dir, env });
  assert.equal(stale.status, 0, stale.stderr);
  assert.equal(verifyEventLog(path.join(state, 'ada', 'logs', 'events.jsonl')).ok, true);
});
