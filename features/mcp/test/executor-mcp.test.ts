/**
 * The whole path, end to end: `runtimectl run` hands the executor's harness this install's
 * `mcp serve`; the fake codex (or claude), inside the session's OS sandbox, starts it with the
 * SDK's stdio Client and calls a tool; the server relays the call to the running kernel, which
 * runs it in the tool's isolate under its grant, audits it (a tool_call event), records it in
 * the cycle's trace (so replay replays it) and counts it in the cycle's tool usage.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { replayPersona } from '../../science-loop/preset.ts';
import { budgeted, CACHE_DIR, cycleEvents, events, packet, run, tempDir } from '../../science-loop/test/helpers.ts';
import { NO_OS_SANDBOX } from '../../../test/support/os-sandbox.ts';
import { harnessToolServer } from '../harness-server.ts';
import { pluginSearchPath, PluginRegistry } from '../../../kernel/plugins/registry.ts';
import { personaPaths, workspaceDir } from '../../../kernel/loop/layout.ts';
import { wordsPlugin } from './fixtures.ts';

for (const executor of ['executor.codex', 'executor.claude']) {
  test(`${executor}: the agent's MCP client calls the persona's tools through mcp serve, the broker and the isolate; audited, traced, replayed`, { skip: NO_OS_SANDBOX }, async () => {
    const dir = tempDir('rtc-mcp-e2e-');
    const stateDir = path.join(dir, 'state');
    const plugins = path.join(dir, 'plugins');
    wordsPlugin(plugins);
    packet(stateDir, 'ada', 'q.md', '# Q\n');
    const p = budgeted(dir, 'ada', executor, `  config:\n    args: ['--fake-mcp-call=tool.words.count:{"text":"one two three"}', '--fake-mcp-call=tool.words.peek']\ntools: [tool.words]`);
    const [r] = await run([p], { stateDir, pluginPath: [plugins], mcpServer: harnessToolServer([p], stateDir) });
    const report = r!.reports[0]!;
    assert.equal(report.act.status, 'ok', report.defer_reason ?? JSON.stringify(report.act));
    const event = cycleEvents(stateDir, 'ada')[0]!;
    const workspace = workspaceDir(personaPaths(stateDir, 'ada'));
    const seen = JSON.parse(readFileSync(path.join(workspace, 'fake-mcp.json'), 'utf8'));
    assert.equal(seen.error, undefined, seen.error);
    assert.deepEqual(seen.tools, ['tool.words.count', 'tool.words.boom', 'tool.words.spin', 'tool.words.peek']);
    assert.equal(seen.calls[0].isError, false);
    assert.equal(JSON.parse(seen.calls[0].text).words, 3);
    // a denial inside the tool's isolate is the agent's tool error, not the session's end
    assert.equal(seen.calls[1].isError, true);
    assert.match(seen.calls[1].text, /NotCapable/);

    // audited: one tool_call event a call, from the agent through mcp serve, in this cycle
    const calls = events(stateDir, 'ada').filter((e) => e.type === 'tool_call').map((e) => e.payload as Record<string, any>);
    assert.deepEqual(calls.map((c) => [c.tool, c.via, c.cycle, c.ok]), [['tool.words.count', 'mcp', 1, true], ['tool.words.peek', 'mcp', 1, false]]);
    // the cycle says what was offered and called
    assert.deepEqual(event.tools.called, ['tool.words.count', 'tool.words.peek']);
    assert.equal(event.tools.calls, 2);
    assert.equal(event.tools.failed, 1);
    // recorded in the cycle's trace beside the executor's own call
    const trace = readFileSync(path.join(stateDir, 'ada', 'trace', 'cycles.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(trace[0].calls.filter((c: { plugin: string }) => c.plugin === 'tool.words').map((c: { method: string }) => c.method), ['count', 'peek']);
    // and replayed with the rest of the cycle
    const registry = PluginRegistry.scan(pluginSearchPath({ env: {}, dirs: [plugins] }));
    const replay = await replayPersona({ stateDir, personaId: 'ada', registry, cacheDir: CACHE_DIR });
    assert.equal(replay.divergence, null, JSON.stringify(replay.divergence));
    assert.equal(replay.cycles, 1);
  });
}
