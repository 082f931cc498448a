/**
 * `mcp serve`'s server, in process: an SDK Client over an in-memory transport talks to the
 * server built on the persona's tools (opened for tool calls only). Each call runs in the
 * tool's isolate under its grant; errors of every kind are tool errors and the server goes
 * on; each call is a tool_call event and a line of trace/tools.jsonl.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readEvents } from '../../../kernel/events/verify.ts';
import { pluginSearchPath, scanRegistry } from '../../plugin-search/scan.ts';
import { replayPersona } from '../../science-loop/preset.ts';
import { connectServe, resultText, tempDir, toolPersona, wordsPlugin } from './fixtures.ts';


const text = resultText;

test('mcp serve: lists the persona\'s tools with their schemas; calls answer; every failure is a tool error and the server serves on', async () => {
  const dir = tempDir();
  wordsPlugin(path.join(dir, 'plugins'));
  const persona = toolPersona(dir, 'ada', ['tool.words']);
  const { client, close } = await connectServe(dir, persona);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['tool.words.count', 'tool.words.boom', 'tool.words.spin', 'tool.words.peek']);
    assert.deepEqual(tools[0]!.inputSchema.required, ['text']);
    assert.equal(tools[0]!.description, 'How many words a text has.');

    const ok = await client.callTool({ name: 'tool.words.count', arguments: { text: 'one two three' } });
    assert.equal(ok.isError, undefined);
    assert.equal(JSON.parse(text(ok)).words, 3);
    assert.equal((ok.structuredContent as { words: number }).words, 3);

    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['tool.words.nope', {}, /^RTC_ERR_TOOL_UNKNOWN: persona ada has no tool "tool\.words\.nope" \(its tools: tool\.words\.count, /],
      ['tool.words.count', { text: 7 }, /^RTC_ERR_TOOL_ARGS: tool tool\.words\.count: text: /],
      ['tool.words.count', { text: 'a', extra: 1 }, /^RTC_ERR_TOOL_ARGS: /],
      ['tool.words.boom', {}, /the tool broke/],
      ['tool.words.spin', {}, /RTC_ERR_SANDBOX_CPU_LIMIT|CPU/],
      ['tool.words.peek', {}, /NotCapable/],
    ];
    for (const [name, args, expected] of cases) {
      const r = await client.callTool({ name, arguments: args });
      assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}: ${text(r)}`);
      assert.match(text(r), expected);
      // the server and the tool still answer after each failure
      const again = await client.callTool({ name: 'tool.words.count', arguments: { text: 'still here' } });
      assert.equal(JSON.parse(text(again)).words, 2, `after ${name}`);
    }
  } finally {
    await close();
  }

  // every call is an audit event in the persona's log, with who asked and what it used
  const events = [...readEvents(path.join(dir, 'state', 'ada', 'logs', 'events.jsonl'))].filter((e) => e.type === 'tool_call');
  assert.equal(events.length, 13);
  const first = events[0]!.payload as Record<string, any>;
  assert.equal(first.tool, 'tool.words.count');
  assert.equal(first.plugin, 'tool.words');
  assert.equal(first.via, 'mcp');
  assert.equal(first.ok, true);
  assert.ok(first.usage.wall_ms > 0);
  assert.equal(first.trace.file, 'trace/tools.jsonl');
  const denied = events.map((e) => e.payload as Record<string, any>).find((p) => p.tool === 'tool.words.peek')!;
  assert.equal(denied.ok, false);
  assert.match(denied.error, /NotCapable/);
  const unknown = events.map((e) => e.payload as Record<string, any>).find((p) => p.tool === 'tool.words.nope')!;
  assert.equal(unknown.code, 'RTC_ERR_TOOL_UNKNOWN');
  assert.equal(unknown.trace, undefined, 'a call refused before any tool ran has nothing recorded');

  // and each call that ran is a line of the tool trace, its hash the one its event carries
  const traceFile = path.join(dir, 'state', 'ada', 'trace', 'tools.jsonl');
  assert.ok(existsSync(traceFile));
  const lines = readFileSync(traceFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines[0].hash, first.trace.hash);
  assert.equal(lines[0].calls[0].plugin, 'tool.words');
  assert.equal(lines[0].calls[0].method, 'count');

  // replay re-runs each recorded call on its recorded bundle, every effect (the clock too) from the record
  const registry = scanRegistry(pluginSearchPath({ env: {}, dirs: [path.join(dir, 'plugins')] }));
  const replay = await replayPersona({ stateDir: path.join(dir, 'state'), personaId: 'ada', registry });
  assert.equal(replay.divergence, null, JSON.stringify(replay.divergence));
  assert.equal(replay.tool_calls, lines.length);
  assert.equal(lines.length, 10, 'the unknown tool and the two bad arguments never reached a tool: 13 events, 10 lines');
});
