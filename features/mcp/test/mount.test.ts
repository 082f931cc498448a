/**
 * MCP servers as tools: a tool plugin that declares `mcp:` mounts a server the kernel starts
 * under the plugin's grant (environment of only what is declared, wall and output limits,
 * process-group kill) and proxies through the one tool path. Tested against a real server
 * nobody here wrote (@modelcontextprotocol/server-everything) and a hostile one.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { readEvents } from '../../../kernel/events/verify.ts';
import { openToolSource } from '../tool-source.ts';
import { connectServe, EVERYTHING, resultText, ROOT, tempDir, testIo, toolPersona, writePlugin } from './fixtures.ts';

const HOSTILE = path.join(ROOT, 'test', 'fixtures', 'mcp-servers', 'hostile.cjs');
const NODE = process.execPath;

function mountPlugin(root: string, id: string, args: string[], extra = '', wallMs = 3000): void {
  writePlugin(
    root,
    id.replace(/\./g, '-'),
    `id: ${id}
version: 1.0.0
kind: tool
description: A mounted MCP server.
permissions: { run: [${JSON.stringify(NODE)}], env: [MOUNT_SECRET_OK] }
limits: { wallMs: ${wallMs}, outputBytes: 200000 }
mcp:
  command: ${JSON.stringify(NODE)}
  args: ${JSON.stringify(args)}
${extra}`,
  );
}


const text = resultText;

test('a mounted @modelcontextprotocol/server-everything: its tools listed under the plugin, calls proxied, audited and traced', async () => {
  const dir = tempDir();
  // a real server's start on a loaded machine can take seconds: its wall limit is the profile's
  mountPlugin(path.join(dir, 'plugins'), 'tool.everything', [EVERYTHING, 'stdio'], '', 30000);
  const persona = toolPersona(dir, 'ada', ['tool.everything'], `, run: [${JSON.stringify(NODE)}]`);
  const { client, close } = await connectServe(dir, persona);
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('tool.everything.echo'), names.join(', '));
    const r = await client.callTool({ name: 'tool.everything.echo', arguments: { message: 'hello from the kernel' } });
    assert.equal(r.isError, undefined, text(r));
    assert.match(text(r), /hello from the kernel/);
    // the server's own schema check is the server's tool error
    const bad = await client.callTool({ name: 'tool.everything.echo', arguments: { message: 7 } });
    assert.equal(bad.isError, true);
    const unknown = await client.callTool({ name: 'tool.everything.no-such-tool', arguments: {} });
    assert.equal(unknown.isError, true);
    assert.match(text(unknown), /^RTC_ERR_TOOL_UNKNOWN: /);
  } finally {
    await close();
  }
  const calls = [...readEvents(path.join(dir, 'state', 'ada', 'logs', 'events.jsonl'))].filter((e) => e.type === 'tool_call').map((e) => e.payload as Record<string, any>);
  assert.equal(calls[0]!.plugin, 'tool.everything');
  assert.equal(calls[0]!.ok, true);
  assert.equal(calls[0]!.trace.calls, 1);
});

test('a mounted server that crashes, answers garbage, hangs or floods: each a tool error, killed, and the next call gets a fresh server', async () => {
  const dir = tempDir();
  mountPlugin(path.join(dir, 'plugins'), 'tool.hostile', [HOSTILE], '  env: { GIVEN: "${plugin}" }\n  pass_env: [MOUNT_SECRET_OK]\n');
  const persona = toolPersona(dir, 'ada', ['tool.hostile'], `, run: [${JSON.stringify(NODE)}], env: [MOUNT_SECRET_OK]`, 'env: [MOUNT_SECRET_OK]\n');
  const { client, close } = await connectServe(dir, persona, { MOUNT_SECRET_OK: 'passed', KERNEL_ONLY: 'hidden' });
  try {
    // only what is declared reaches the server: nothing of the kernel's environment
    const env = JSON.parse(text(await client.callTool({ name: 'tool.hostile.env', arguments: {} })));
    assert.equal(env.MOUNT_SECRET_OK, 'passed');
    assert.equal(env.GIVEN, path.join(dir, 'plugins', 'tool-hostile'));
    assert.equal(env.KERNEL_ONLY, undefined);
    assert.equal(env.PATH, undefined);
    const pidOf = async () => /pid (\d+)/.exec(text(await client.callTool({ name: 'tool.hostile.echo', arguments: { a: 1 } })))![1];
    let pid = await pidOf();
    const cases: [string, RegExp][] = [
      ['crash', /^RTC_ERR_TOOL_MCP_SERVER: tool plugin tool\.hostile: its MCP server exited \(status 7\)/],
      ['garbage', /^RTC_ERR_TOOL_MCP_SERVER: .*answered something that is not an MCP \(JSON-RPC\) message: "this is not json"/],
      ['hang', /^RTC_ERR_TOOL_MCP_TIMEOUT: .*did not answer tools\/call hang within its wall time limit of 3000 ms; its process group was killed/],
      ['flood', /^RTC_ERR_TOOL_MCP_SERVER: .*wrote more than its output cap of 200000 bytes/],
    ];
    for (const [name, expected] of cases) {
      const r = await client.callTool({ name: `tool.hostile.${name}`, arguments: {} });
      assert.equal(r.isError, true, name);
      assert.match(text(r), expected);
      const next = await pidOf();
      assert.notEqual(next, pid, `after ${name} a fresh server answers`);
      pid = next;
    }
  } finally {
    await close();
  }
});

test('a mount whose command the persona does not allow is refused with NotCapable, and its plugin named in tools list', async () => {
  const dir = tempDir();
  mountPlugin(path.join(dir, 'plugins'), 'tool.everything', [EVERYTHING, 'stdio']);
  const persona = toolPersona(dir, 'ada', ['tool.everything']);
  const source = await openToolSource({ persona, stateDir: path.join(dir, 'state'), pluginsDirs: [path.join(dir, 'plugins')], via: 'cli' }, testIo(dir));
  try {
    const { tools, problems } = await source.list();
    assert.deepEqual(tools, []);
    assert.equal(problems[0]!.plugin, 'tool.everything');
    assert.match(problems[0]!.error, /^RTC_ERR_TOOL_DENIED: NotCapable: tool plugin tool\.everything: its MCP server needs run access/);
  } finally {
    await source.close();
  }
});
