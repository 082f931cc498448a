/**
 * `mcp serve`'s early paths (early-serve.ts) and the persona's tool plan: the real program over stdio. The first serve writes
 * the plan; the next answers tools/list from it and opens the persona only for a call, then
 * serves the kernel's list, tells the client when it differs, and rewrites the plan; a start
 * that fails after the plan was served is still the one line and status of a start without
 * one. Besides, the plan's own checks in process: what invalidates it, what it keeps secret.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { invocationKey, planInputs, readToolPlan, TOOL_PLAN_FILE, writeToolPlan, type ToolPlan } from '../tool-plan.ts';
import { ROOT, tempDir, testIo, toolPersona, wordsPlugin } from './fixtures.ts';

const BIN = path.join(ROOT, 'bin', 'runtimectl.js');

function setup() {
  const dir = tempDir('rtc-plan-');
  const plugins = path.join(dir, 'plugins');
  wordsPlugin(plugins);
  const persona = toolPersona(dir, 'ada', ['tool.words']);
  const state = path.join(dir, 'state');
  const flags = ['--persona', persona, '--state-dir', state, '--plugins-dir', plugins];
  return { dir, plugins, persona, flags, planFile: path.join(state, 'ada', TOOL_PLAN_FILE) };
}

const INIT = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
];
const COUNT_CALL = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'tool.words.count', arguments: { text: 'a b c' } } };

/** `mcp serve` with these requests piped in (its input ends after them), as the real program. */
function servePiped(s: ReturnType<typeof setup>, requests: object[]) {
  const run = spawnSync(process.execPath, ['--no-node-snapshot', BIN, 'mcp', 'serve', ...s.flags], { cwd: s.dir, env: { PATH: process.env.PATH ?? '', HOME: s.dir }, input: requests.map((l) => `${JSON.stringify(l)}\n`).join(''), encoding: 'utf8', timeout: 120_000 });
  const answers = run.stdout.trim() === '' ? [] : run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id?: number; result?: Record<string, any>; method?: string });
  return { status: run.status, stderr: run.stderr, answers };
}

const readPlan = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as ToolPlan;

test('the first mcp serve writes the plan; the next serves tools/list from it, opens the persona for a call, and tells the client when the kernel lists otherwise', async () => {
  const s = setup();
  const first = servePiped(s, [...INIT, COUNT_CALL]);
  assert.equal(first.status, 0, first.stderr);
  const plan = readPlan(s.planFile);
  assert.deepEqual(plan.report.tools.map((t) => t.name), ['tool.words.count', 'tool.words.boom', 'tool.words.spin', 'tool.words.peek']);
  assert.equal(plan.persona.id, 'ada');
  assert.equal(plan.persona.file, s.persona);

  // The plan says something the kernel will not: served as it is until the persona is open.
  const stale = { ...plan, report: { ...plan.report, tools: plan.report.tools.map((t, i) => (i === 0 ? { ...t, description: 'from the plan' } : t)) } };
  writeFileSync(s.planFile, `${JSON.stringify(stale)}\n`);
  const lockInfo = path.join(path.dirname(s.planFile), 'writer.lock.json');
  const lockedAt = statSync(lockInfo).mtimeMs;

  const client = new Client({ name: 'test', version: '1' });
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--no-node-snapshot', BIN, 'mcp', 'serve', ...s.flags], cwd: s.dir, env: { PATH: process.env.PATH ?? '', HOME: s.dir }, stderr: 'pipe' }));
  try {
    assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
    const planned = await client.listTools();
    assert.equal(planned.tools[0]!.description, 'from the plan');
    // a call opens the persona (the full start check and the writer lock) and is made by the kernel
    const r = await client.callTool({ name: 'tool.words.count', arguments: { text: 'x y' } });
    assert.equal(JSON.parse((r.content as { text: string }[])[0]!.text).words, 2);
    assert.notEqual(statSync(lockInfo).mtimeMs, lockedAt, 'the call took the writer lock');
    assert.equal(changed, 1, 'the client is told the list changed');
    assert.equal((await client.listTools()).tools[0]!.description, 'How many words a text has.');
  } finally {
    await client.close();
  }
  // the plan is the kernel's list again
  assert.equal(readPlan(s.planFile).report.tools[0]!.description, 'How many words a text has.');
});

test('a client that lists and leaves never waits for the kernel: the persona is not opened (no writer lock taken)', () => {
  const s = setup();
  assert.equal(servePiped(s, [...INIT, COUNT_CALL]).status, 0);
  const lockInfo = path.join(path.dirname(s.planFile), 'writer.lock.json');
  const lockedAt = statSync(lockInfo).mtimeMs;
  const run = servePiped(s, INIT);
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(run.answers.map((a) => a.id), [1, 2]);
  assert.equal(run.answers[1]!.result!.tools[0].name, 'tool.words.count');
  assert.equal(statSync(lockInfo).mtimeMs, lockedAt);
  // a relay pointer a killed kernel left behind (its process is gone) does not stand in the way
  writeFileSync(path.join(path.dirname(s.planFile), 'tools-relay.json'), JSON.stringify({ socket: '/tmp/runtimectl-tools-gone/tools.sock', pid: 2 ** 22 + 17, start_ticks: 1 }));
  const stale = servePiped(s, INIT);
  assert.equal(stale.status, 0, stale.stderr);
  assert.deepEqual(stale.answers.map((a) => a.id), [1, 2]);
  assert.equal(statSync(lockInfo).mtimeMs, lockedAt);
});

test('mcp serve handed a kernel socket that is gone says so in one line and exits 1, plan or none', () => {
  const s = setup();
  assert.equal(servePiped(s, [...INIT, COUNT_CALL]).status, 0);
  const gone = path.join(s.dir, 'gone.sock');
  const run = spawnSync(process.execPath, ['--no-node-snapshot', BIN, 'mcp', 'serve', ...s.flags], { cwd: s.dir, env: { PATH: process.env.PATH ?? '', HOME: s.dir, RUNTIMECTL_TOOLS_SOCKET: gone }, input: '', encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, /^runtimectl bridge: cannot reach the kernel's tool relay at \S+gone\.sock \(RUNTIMECTL_TOOLS_SOCKET\): ENOENT\n$/);
  assert.equal(run.stdout, '');
});

test('a start that fails after the plan answered is the same one line and status: the writer lock held elsewhere', async () => {
  const s = setup();
  assert.equal(servePiped(s, [...INIT, COUNT_CALL]).status, 0);
  const { openToolSource } = await import('../tool-source.ts');
  const { openLoopKernel } = await import('../../science-loop/preset.ts');
  const holder = await openToolSource({ openKernel: openLoopKernel, persona: s.persona, stateDir: path.join(s.dir, 'state'), pluginsDirs: [s.plugins], via: 'cli' }, testIo(s.dir));
  try {
    const run = servePiped(s, [...INIT, COUNT_CALL]);
    assert.equal(run.status, 1, run.stderr);
    // initialize and tools/list came from the plan; the call needed the persona, which another writer holds
    assert.deepEqual(run.answers.filter((a) => a.id !== undefined && a.id < 3).map((a) => a.id), [1, 2]);
    assert.match(run.stderr, /^runtimectl: RTC_ERR_PERSONA_LOCKED: [^\n]+\n/m);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  } finally {
    await holder.close();
  }
});

test('the plan is used only while nothing it was made from changed, for the same invocation; variables are kept as a hash', () => {
  const dir = tempDir('rtc-plan-unit-');
  const plugins = path.join(dir, 'plugins');
  wordsPlugin(plugins);
  const persona = toolPersona(dir, 'ada', ['tool.words']);
  const personaDir = path.join(dir, 'state', 'ada');
  mkdirSync(personaDir, { recursive: true });
  const io = testIo(dir, { RUNTIMECTL_SKILLS_PATH: '', SCIDEX_TOKEN: 'hunter2-secret' });
  const values = { persona, 'plugins-dir': [plugins] };
  const key = invocationKey(values, io);
  const report = { tools: [{ name: 'tool.words.count', plugin: 'tool.words', export: 'count', source: 'plugin' as const, description: 'd', input_schema: { type: 'object' } }], problems: [] };
  const write = () => writeToolPlan(personaDir, { key, persona: { id: 'ada', file: persona }, inputs: planInputs([persona], [plugins]), report });
  write();
  assert.deepEqual(readToolPlan(personaDir, key)?.report, report);
  assert.doesNotMatch(readFileSync(path.join(personaDir, TOOL_PLAN_FILE), 'utf8'), /hunter2/);

  // another invocation: other flags, another working folder, another variable
  assert.notEqual(invocationKey({ ...values, 'state-dir': 'elsewhere' }, io), key);
  assert.notEqual(invocationKey(values, testIo(path.join(dir, 'plugins'), { SCIDEX_TOKEN: 'hunter2-secret' })), key);
  assert.notEqual(invocationKey(values, testIo(dir, { RUNTIMECTL_SKILLS_PATH: '', SCIDEX_TOKEN: 'other' })), key);
  assert.equal(invocationKey(values, testIo(dir, { SCIDEX_TOKEN: 'hunter2-secret', RUNTIMECTL_SKILLS_PATH: '', UNRELATED: 'x' })), key);
  assert.equal(readToolPlan(personaDir, 'another key'), undefined);

  const edits: [string, () => void][] = [
    ['the profile edited', () => appendFileSync(persona, '# edited\n')],
    ['a manifest edited', () => appendFileSync(path.join(plugins, 'tool-words', 'plugin.yaml'), '# edited\n')],
    ['a file added to a plugin', () => writeFileSync(path.join(plugins, 'tool-words', 'extra.ts'), '')],
    ['a plugin added', () => mkdirSync(path.join(plugins, 'tool-new'))],
  ];
  for (const [what, edit] of edits) {
    write();
    assert.notEqual(readToolPlan(personaDir, key), undefined);
    edit();
    assert.equal(readToolPlan(personaDir, key), undefined, what);
  }

  // not a plan: unreadable, another format or version, a tool of the wrong shape
  write();
  const file = path.join(personaDir, TOOL_PLAN_FILE);
  const good = readPlan(file);
  for (const bad of ['{not json', JSON.stringify({ ...good, format: 'runtimectl.tool-plan/0' }), JSON.stringify({ ...good, version: '0.0.0-old' }), JSON.stringify({ ...good, report: { tools: [{ name: 1 }], problems: [] } })]) {
    writeFileSync(file, bad);
    assert.equal(readToolPlan(personaDir, key), undefined, bad.slice(0, 60));
  }
});
