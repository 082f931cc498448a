/**
 * MCP servers as tools: a tool plugin that declares `mcp:` mounts a server the kernel starts
 * under the plugin's grant (environment of only what is declared, wall and output limits,
 * process-group kill) and proxies through the one tool path. Tested against a real server
 * nobody here wrote (@modelcontextprotocol/server-everything) and a hostile one.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { readEvents } from '../../../kernel/events/verify.ts';
import { openToolSource } from '../tool-source.ts';
import { openLoopKernel } from '../../science-loop/preset.ts';
import { connectServe, EVERYTHING, resultText, ROOT, tempDir, testIo, toolPersona, writePlugin } from './fixtures.ts';
import { NO_OS_SANDBOX } from '../../../test/support/os-sandbox.ts';
import { runCli } from '../../../test/support/cli.ts';

const HOSTILE = path.join(ROOT, 'test', 'fixtures', 'mcp-servers', 'hostile.cjs');
const NODE = process.execPath;

/** A plugin mounting `node args...`; it may read `reads` (the server's own code must be among them: inside the OS sandbox nothing else is there). */
function mountPlugin(root: string, id: string, args: string[], extra = '', wallMs = 3000, reads: string[] = [path.dirname(args[0]!)]): void {
  writePlugin(
    root,
    id.replace(/\./g, '-'),
    `id: ${id}
version: 1.0.0
kind: tool
description: A mounted MCP server.
permissions: { run: [${JSON.stringify(NODE)}], env: [MOUNT_SECRET_OK], read: ${JSON.stringify(reads)} }
limits: { wallMs: ${wallMs}, outputBytes: 200000 }
mcp:
  command: ${JSON.stringify(NODE)}
  args: ${JSON.stringify(args)}
${extra}`,
  );
}


const text = resultText;

/** The profile at `file`, also allowed to read `trees`. */
function allowRead(file: string, ...trees: string[]): string {
  writeFileSync(file, readFileSync(file, 'utf8').replace('read: ["${state}"]', `read: ${JSON.stringify(['${state}', ...trees])}`));
  return file;
}

test('a mounted @modelcontextprotocol/server-everything: its tools listed under the plugin, calls proxied, audited and traced', async () => {
  const dir = tempDir();
  // a real server's start on a loaded machine can take seconds: its wall limit is the profile's
  // its install, read-only: node_modules (and where it really is, when it is a link: a worktree sharing one)
  const modules = [...new Set([path.join(ROOT, 'node_modules'), realpathSync(path.join(ROOT, 'node_modules'))])];
  mountPlugin(path.join(dir, 'plugins'), 'tool.everything', [EVERYTHING, 'stdio'], '', 30000, modules);
  const persona = allowRead(toolPersona(dir, 'ada', ['tool.everything'], `, run: [${JSON.stringify(NODE)}]`), ...modules);
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
  // inside bubblewrap where it can run (CI installs it), seeing only its install and the persona's grant
  assert.equal(calls[0]!.os_sandbox, NO_OS_SANDBOX ? calls[0]!.os_sandbox : 'bubblewrap');
});

test('a mounted server that crashes, answers garbage, hangs or floods: each a tool error, killed, and the next call gets a fresh server', async () => {
  const dir = tempDir();
  mountPlugin(path.join(dir, 'plugins'), 'tool.hostile', [HOSTILE], '  env: { GIVEN: "${plugin}" }\n  pass_env: [MOUNT_SECRET_OK]\n');
  const persona = allowRead(toolPersona(dir, 'ada', ['tool.hostile'], `, run: [${JSON.stringify(NODE)}], env: [MOUNT_SECRET_OK]`, 'env: [MOUNT_SECRET_OK]\n'), path.dirname(HOSTILE));
  const { client, close } = await connectServe(dir, persona, { MOUNT_SECRET_OK: 'passed', KERNEL_ONLY: 'hidden' });
  try {
    // only what is declared reaches the server: nothing of the kernel's environment
    const env = JSON.parse(text(await client.callTool({ name: 'tool.hostile.env', arguments: {} })));
    assert.equal(env.MOUNT_SECRET_OK, 'passed');
    assert.equal(env.GIVEN, path.join(dir, 'plugins', 'tool-hostile'));
    assert.equal(env.KERNEL_ONLY, undefined);
    assert.equal(env.PATH, undefined);
    assert.equal(env.HOME, undefined);
    const pidOf = async () => /pid ([0-9a-f]+)/.exec(text(await client.callTool({ name: 'tool.hostile.echo', arguments: { a: 1 } })))![1];
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
  const source = await openToolSource({ openKernel: openLoopKernel, persona, stateDir: path.join(dir, 'state'), pluginsDirs: [path.join(dir, 'plugins')], via: 'cli' }, testIo(dir));
  try {
    const { tools, problems } = await source.list();
    assert.deepEqual(tools, []);
    assert.equal(problems[0]!.plugin, 'tool.everything');
    assert.match(problems[0]!.error, /^RTC_ERR_TOOL_DENIED: NotCapable: tool plugin tool\.everything: its MCP server needs run access/);
  } finally {
    await source.close();
  }
});

test('a mounted server runs inside the OS sandbox: only its grant\'s files, no network of its own; the tools list and every call say so', { skip: NO_OS_SANDBOX }, async () => {
  const dir = tempDir();
  const granted = path.join(dir, 'granted');
  const secret = path.join(dir, 'secret');
  mkdirSync(granted);
  mkdirSync(secret);
  writeFileSync(path.join(granted, 'note.txt'), 'readable');
  writeFileSync(path.join(secret, 'key.txt'), 'the kernel user can read this');
  // the plugin asks for its code and granted/ (the persona allows both), and for secret/ (the persona does not)
  mountPlugin(path.join(dir, 'plugins'), 'tool.hostile', [HOSTILE], '', 10000, [path.dirname(HOSTILE), granted, secret]);
  const persona = allowRead(toolPersona(dir, 'ada', ['tool.hostile'], `, run: [${JSON.stringify(NODE)}]`), path.dirname(HOSTILE), granted);
  // a TCP server on the host's loopback: reachable by the kernel user, not from inside the sandbox
  const listener = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as { port: number }).port;
  const { client, close } = await connectServe(dir, persona);
  try {
    const listed = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(listed.includes('tool.hostile.read'));
    const read = async (file: string) => text(await client.callTool({ name: 'tool.hostile.read', arguments: { file } }));
    assert.equal(await read(path.join(granted, 'note.txt')), 'readable');
    assert.equal(await read(path.join(secret, 'key.txt')), 'error ENOENT', 'a tree the persona does not allow is not there');
    assert.equal(await read(path.join(dir, 'state', 'ada', 'logs', 'events.jsonl')), 'error ENOENT', 'the state directory is masked');
    assert.equal(await read(path.join(ROOT, 'package.json')), 'error ENOENT', 'nor is the kernel\'s install');
    assert.match(text(await client.callTool({ name: 'tool.hostile.connect', arguments: { port } })), /^error E/, 'no network of its own');
  } finally {
    await close();
    listener.close();
  }
  const calls = [...readEvents(path.join(dir, 'state', 'ada', 'logs', 'events.jsonl'))].filter((e) => e.type === 'tool_call').map((e) => e.payload as Record<string, any>);
  assert.ok(calls.length >= 5);
  for (const c of calls) assert.equal(c.os_sandbox, 'bubblewrap');
  const listedJson = await runCli(['tools', 'list', '--persona', persona, '--state-dir', path.join(dir, 'state'), '--plugins-dir', path.join(dir, 'plugins'), '--json'], { cwd: dir, env: { PATH: process.env.PATH } });
  assert.equal(listedJson.status, 0, listedJson.stderr);
  assert.equal(JSON.parse(listedJson.stdout).tools[0].os_sandbox, 'bubblewrap');
});

test('without bubblewrap (or with os_sandbox: off) a mounted server runs as before, a plain child, and says so: tools list, the server\'s log, every call', async () => {
  const dir = tempDir();
  const secret = path.join(dir, 'secret');
  mkdirSync(secret);
  writeFileSync(path.join(secret, 'key.txt'), 'outside the grant');
  mountPlugin(path.join(dir, 'plugins'), 'tool.hostile', [HOSTILE], '', 10000);
  const persona = allowRead(toolPersona(dir, 'ada', ['tool.hostile'], `, run: [${JSON.stringify(NODE)}]`), path.dirname(HOSTILE));
  const flags = ['--persona', persona, '--state-dir', path.join(dir, 'state'), '--plugins-dir', path.join(dir, 'plugins')];
  // a bwrap that is not there: the kernel's own lookup says why
  const env = { PATH: process.env.PATH, RUNTIMECTL_BWRAP: path.join(dir, 'no-bwrap') };
  const listed = await runCli(['tools', 'list', ...flags], { cwd: dir, env });
  assert.equal(listed.status, 0, listed.stderr);
  assert.match(listed.stdout, /^tool\.hostile\.echo {2}\[MCP server of tool\.hostile, NOT in the OS sandbox \(unavailable: .*no-bwrap.*\)\]/m);
  const called = await runCli(['tools', 'call', ...flags, 'tool.hostile.read', '--args', JSON.stringify({ file: path.join(secret, 'key.txt') }), '--json'], { cwd: dir, env });
  assert.equal(called.status, 0, called.stderr);
  // the previous behaviour: the server's file access is the kernel user's
  assert.match(JSON.stringify(JSON.parse(called.stdout).result), /outside the grant/);
  const calls = [...readEvents(path.join(dir, 'state', 'ada', 'logs', 'events.jsonl'))].filter((e) => e.type === 'tool_call').map((e) => e.payload as Record<string, any>);
  assert.match(calls.at(-1)!.os_sandbox, /^unavailable: /);
  // the profile's opt-out
  writeFileSync(persona, `${readFileSync(persona, 'utf8')}os_sandbox: off\n`);
  const logged: string[] = [];
  const serve = await connectServe(dir, persona, {}, (line) => logged.push(line));
  try {
    await serve.client.listTools();
    const r = await serve.client.callTool({ name: 'tool.hostile.echo', arguments: {} });
    assert.equal(r.isError, undefined, text(r));
  } finally {
    await serve.close();
  }
  assert.deepEqual(logged.filter((l) => /without the OS sandbox/.test(l)), [
    "tool plugin tool.hostile: its MCP server runs without the OS sandbox (off: the persona's profile opts out (os_sandbox: off)): its file and network access are the kernel user's",
  ]);
  const off = [...readEvents(path.join(dir, 'state', 'ada', 'logs', 'events.jsonl'))].filter((e) => e.type === 'tool_call').map((e) => e.payload as Record<string, any>);
  assert.match(off.at(-1)!.os_sandbox, /^off: /);
});
