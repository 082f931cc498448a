/**
 * The whole path, end to end: `runtimectl run` hands the executor's harness the bridge
 * (`node features/mcp/bridge.mjs`, no second runtimectl); the fake codex (or claude), inside
 * the session's OS sandbox, starts it as its MCP server and speaks MCP through it to the
 * running kernel's relay socket, where the kernel serves MCP itself: it runs each call in the
 * tool's isolate under its grant, audits it (a tool_call event), records it in the cycle's
 * trace (so replay replays it) and counts it in the cycle's tool usage. A line that is not
 * JSON is answered with a JSON-RPC error, and the session goes on.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { replayPersona } from '../../science-loop/preset.ts';
import { CACHE_DIR, cycleEvents, events, packet, profile, run, tempDir } from '../../science-loop/test/helpers.ts';
import { NO_OS_SANDBOX } from '../../../test/support/os-sandbox.ts';
import { BRIDGE_FILE, harnessToolServer } from '../harness-server.ts';
import { pluginSearchPath, scanRegistry } from '../../plugin-search/scan.ts';
import { personaPaths, workspaceDir } from '../../persona-layout/layout.ts';
import { ROOT, wordsPlugin, writePlugin } from './fixtures.ts';

const SKILLS = path.join(ROOT, 'test', 'fixtures', 'skill-scripts');
const HOSTILE = path.join(ROOT, 'test', 'fixtures', 'mcp-servers', 'hostile.cjs');

function mountHostile(root: string): void {
  const node = JSON.stringify(process.execPath);
  writePlugin(root, 'tool-hostile', `id: tool.hostile\nversion: 1.0.0\nkind: tool\ndescription: A mounted MCP server.\npermissions: { run: [${node}], read: [${JSON.stringify(path.dirname(HOSTILE))}] }\nmcp: { command: ${node}, args: [${JSON.stringify(HOSTILE)}] }\n`);
}

for (const executor of ['executor.codex', 'executor.claude', 'executor.command']) {
  test(`${executor}: the agent's MCP client calls the persona's tools through the bridge (no runtimectl process), the kernel's MCP relay, the broker and the isolate; audited, traced, replayed`, { skip: NO_OS_SANDBOX }, async () => {
    const dir = tempDir('rtc-mcp-e2e-');
    const stateDir = path.join(dir, 'state');
    const plugins = path.join(dir, 'plugins');
    wordsPlugin(plugins);
    packet(stateDir, 'ada', 'q.md', '# Q\n');
    mountHostile(plugins);
    const host = executor === 'executor.codex' ? 'api.openai.com' : 'api.anthropic.com';
    const mcpCalls = `'--fake-mcp-call=tool.words.count:{"text":"one two three"}', '--fake-mcp-call=tool.words.peek', '--fake-mcp-call=tool.hostile.echo:{"a":1}', '--fake-mcp-call=skill.text-stats.stats:{"args":["the","owl"]}'`;
    // the command executor runs the MCP client itself, the server's command line in its environment
    const config = executor === 'executor.command'
      ? `{ command: mcp-client.cjs, args: [env, ${mcpCalls}], spends_tokens: false }`
      : `{ args: [${mcpCalls}] }`;
    const p = profile(
      dir,
      'ada',
      `runtime: agent-ada
executor:
  plugin: ${executor}
  config: ${config}
tools: [tool.words, tool.hostile]
skills: [text-stats]
budget: { daily_tokens: 200000, max_tokens_per_session: 50000, min_tokens_remaining_for_executor: 1000, wall_seconds_per_cycle: 30 }
allow: { read: ["\${state}", ${JSON.stringify(SKILLS)}, ${JSON.stringify(path.dirname(HOSTILE))}], write: ["\${state}"], run: [codex, claude, sh, mcp-client.cjs, ${JSON.stringify(process.execPath)}], net: [${host}] }
bindings: [ledger, events, memory]`,
    );
    const [r] = await run([p], { stateDir, pluginPath: [plugins], skillsDirs: [SKILLS], mcpServer: harnessToolServer([p]) });
    const report = r!.reports[0]!;
    assert.equal(report.act.status, 'ok', report.defer_reason ?? JSON.stringify(report.act));
    const event = cycleEvents(stateDir, 'ada')[0]!;
    const workspace = workspaceDir(personaPaths(stateDir, 'ada'));
    const seen = JSON.parse(readFileSync(path.join(workspace, 'fake-mcp.json'), 'utf8'));
    assert.equal(seen.error, undefined, seen.error);
    // the server the harness started is the bridge under node: no runtimectl process in the session
    assert.deepEqual(seen.server, { command: process.execPath, args: [BRIDGE_FILE] });
    assert.ok(![seen.server.command, ...seen.server.args].some((a: string) => /runtimectl\.js|\.build|cli\/main/.test(a)), JSON.stringify(seen.server));
    // a garbage line is a JSON-RPC parse error (id null), and the session answers the next request
    assert.equal(seen.garbage.code, -32700, JSON.stringify(seen.garbage));
    assert.deepEqual(seen.ping, {});
    assert.deepEqual(seen.tools.slice(0, 5), ['tool.words.count', 'tool.words.boom', 'tool.words.spin', 'tool.words.peek', 'tool.hostile.echo']);
    assert.deepEqual(seen.tools.slice(-2), ['skill.text-stats.hostile', 'skill.text-stats.stats']);
    assert.equal(seen.calls[0].isError, false);
    assert.equal(JSON.parse(seen.calls[0].text).words, 3);
    // a denial inside the tool's isolate is the agent's tool error, not the session's end
    assert.equal(seen.calls[1].isError, true);
    assert.match(seen.calls[1].text, /NotCapable/);
    // a mounted server's tool, proxied by the kernel
    assert.equal(seen.calls[2].isError, false, seen.calls[2].text);
    assert.match(seen.calls[2].text, /^echo \{"a":1\} pid [0-9a-f]{12}$/);
    // a selected skill's script, run in the sandbox under the skill's grant
    assert.equal(seen.calls[3].isError, false, seen.calls[3].text);
    assert.deepEqual(JSON.parse(seen.calls[3].text), { words: 2, stopwords: 1 });

    // audited: one tool_call event a call, from the agent through the relay, in this cycle
    const toolEvents = events(stateDir, 'ada').filter((e) => e.type === 'tool_call');
    const calls = toolEvents.map((e) => e.payload as Record<string, any>);
    assert.deepEqual(calls.map((c) => [c.tool, c.via, c.cycle, c.ok]), [['tool.words.count', 'mcp', 1, true], ['tool.words.peek', 'mcp', 1, false], ['tool.hostile.echo', 'mcp', 1, true], ['skill.text-stats.stats', 'mcp', 1, true]]);
    // the session's manifest says which tools were offered and which were called, each call naming its event
    const manifest = JSON.parse(readFileSync(path.join(stateDir, event.executor_session.manifest_path), 'utf8'));
    assert.equal(manifest.tools.server, 'runtimectl');
    assert.deepEqual(manifest.tools.offered, seen.tools);
    assert.deepEqual(manifest.tools.called, ['tool.words.count', 'tool.words.peek', 'tool.hostile.echo', 'skill.text-stats.stats']);
    assert.deepEqual(manifest.tools.calls, [
      { tool: 'tool.words.count', via: 'mcp', ok: true, event_seq: toolEvents[0]!.seq },
      { tool: 'tool.words.peek', via: 'mcp', ok: false, code: calls[1]!.code, event_seq: toolEvents[1]!.seq },
      { tool: 'tool.hostile.echo', via: 'mcp', ok: true, event_seq: toolEvents[2]!.seq },
      { tool: 'skill.text-stats.stats', via: 'mcp', ok: true, event_seq: toolEvents[3]!.seq },
    ]);
    assert.ok(calls[1]!.code, 'a denied call carries its code');
    // the executor's own manifest fields are kept beside them
    assert.equal(manifest.run_id, event.executor_session.run_id);
    // the cycle says what was offered and called
    assert.deepEqual(event.tools.called, ['tool.words.count', 'tool.words.peek', 'tool.hostile.echo', 'skill.text-stats.stats']);
    assert.equal(event.tools.calls, 4);
    assert.equal(event.tools.failed, 1);
    // recorded in the cycle's trace beside the executor's own call
    const trace = readFileSync(path.join(stateDir, 'ada', 'trace', 'cycles.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(trace[0].calls.filter((c: { plugin: string }) => c.plugin.startsWith('tool.') || c.plugin.startsWith('skill:')).map((c: { plugin: string; method: string }) => `${c.plugin}.${c.method}`), ['tool.words.count', 'tool.words.peek', 'tool.hostile.echo', 'skill:shared/text-stats/scripts/stats.ts.run']);
    // and replayed with the rest of the cycle (the mounted server's answer from the record: no server is started)
    const registry = scanRegistry(pluginSearchPath({ env: {}, dirs: [plugins] }));
    const replay = await replayPersona({ stateDir, personaId: 'ada', registry, cacheDir: CACHE_DIR, skillsDirs: [SKILLS] });
    assert.equal(replay.divergence, null, JSON.stringify(replay.divergence));
    assert.equal(replay.cycles, 1);
  });
}
