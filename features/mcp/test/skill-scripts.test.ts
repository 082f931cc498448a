/**
 * A selected skill's scripts are tools: listed by mcp serve with the skill's description,
 * each call one sandboxed run of the script (its args as Deno.args) under the grant the
 * skill's plugin.yaml requests ∩ the persona's allow ∩ the profile's ceiling; stdout and the
 * exit status are the answer, a denial or a limit a tool error, and the server serves on.
 * Each call is a tool_call event, recorded in trace/tools.jsonl and replayed.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readLogFiles } from '../../history-segments/file-log.ts';
import { openLoopKernel, replayPersona } from '../../science-loop/preset.ts';
import { openBackend } from '../../persistence/open.ts';
import { runCli } from '../../../test/support/cli.ts';
import { toolServer } from '../../persona/tools/mcp-server.ts';
import { openToolSource } from '../tool-source.ts';
import { ROOT, resultText, tempDir, testIo } from './fixtures.ts';

const SKILLS = path.join(ROOT, 'test', 'fixtures', 'skill-scripts');
const TEXT_STATS = path.join(SKILLS, 'shared', 'text-stats');

/** ada selects three skills; she may read her state and the fixture skills (not /etc, which text-stats' manifest also asks for) and run sh. */
function persona(dir: string): string {
  const file = path.join(dir, 'ada.yaml');
  writeFileSync(
    file,
    `id: ada
runtime: agent-ada
executor: { plugin: executor.none }
skills: [text-stats, no-grant, bad-grant]
budget: { daily_tokens: 1000, cpu_seconds_per_cycle: 30 }
allow: { read: ["\${state}", ${JSON.stringify(SKILLS)}], write: ["\${state}"], run: [sh] }
`,
  );
  return file;
}

async function connect(dir: string, file: string) {
  const source = await openToolSource({ openKernel: openLoopKernel, persona: file, stateDir: path.join(dir, 'state'), skillsDirs: [SKILLS], via: 'mcp' }, testIo(dir));
  const server = toolServer({ source });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(b);
  return { client, close: async () => (await client.close(), await source.close()) };
}

test('skill scripts are tools: run like sandbox run under the skill\'s grant ∩ the persona\'s, every misbehaviour a tool error; audited, traced, replayed', async () => {
  const dir = tempDir('rtc-mcp-scripts-');
  const file = persona(dir);
  const { client, close } = await connect(dir, file);
  let results: CallToolResult[] = [];
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.deepEqual(names, ['skill.no-grant.hello', 'skill.text-stats.hostile', 'skill.text-stats.stats']);
    const stats = tools.find((t) => t.name === 'skill.text-stats.stats')!;
    assert.match(stats.description!, /scripts\/stats\.ts of the skill "text-stats".*Counts the words/);
    assert.deepEqual(Object.keys((stats.inputSchema as { properties: object }).properties), ['args']);

    const call = async (name: string, args: unknown) => (await client.callTool({ name, arguments: args as Record<string, unknown> })) as CallToolResult;
    const calls: [string, unknown][] = [
      ['skill.text-stats.stats', { args: ['the', 'cat', 'of', 'Ada'] }],
      ['skill.text-stats.hostile', { args: ['read-etc'] }],
      ['skill.text-stats.hostile', { args: ['read-home'] }],
      ['skill.text-stats.hostile', { args: ['env'] }],
      ['skill.text-stats.hostile', { args: ['net'] }],
      ['skill.text-stats.hostile', { args: ['run'] }],
      ['skill.text-stats.hostile', { args: ['spin'] }],
      ['skill.text-stats.hostile', { args: ['flood'] }],
      ['skill.text-stats.hostile', { args: ['memory'] }],
      ['skill.text-stats.hostile', { args: ['throw'] }],
      ['skill.text-stats.hostile', { args: ['exit', '7'] }],
      ['skill.text-stats.stats', { args: [1, 2] }],
      ['skill.no-grant.hello', { args: ['world'] }],
      ['skill.no-grant.hello', { args: ['read-self'] }],
      ['skill.bad-grant.never', {}],
      ['skill.text-stats.stats', { args: ['x', 'b'] }],
    ];
    for (const [name, args] of calls) results.push(await call(name, args));
  } finally {
    await close();
  }
  const [ok, etc, home, env, net, run, spin, flood, memory, thrown, exit, badArgs, hello, self, refused, after] = results as CallToolResult[] & { length: 16 };
  assert.equal(ok!.isError, undefined, resultText(ok));
  assert.deepEqual(JSON.parse(resultText(ok)), { words: 4, stopwords: 2 });
  assert.deepEqual(ok!.structuredContent, { exit_code: 0, stdout: '{"words":4,"stopwords":2}\n', stderr: '' });
  // the skill asked for /etc; the persona does not allow it: the intersection denies
  assert.equal(etc!.isError, true);
  assert.match(resultText(etc), /NotCapable: Requires read access to "\/etc\/hostname"/);
  assert.match(resultText(home), /NotCapable: Requires read access/);
  assert.match(resultText(env), /NotCapable: Requires env access to "PATH"/);
  assert.match(resultText(net), /NotCapable: Requires net access to "127\.0\.0\.1:8080"/);
  assert.match(resultText(run), /NotCapable: Requires run access to "sh"/);
  // limits: the skill's CPU (3 s), output (64 KiB) and memory (64 MB) within the default profile's
  assert.match(resultText(spin), /RTC_ERR_SANDBOX_CPU/);
  assert.match(resultText(flood), /RTC_ERR_SANDBOX_OUTPUT/);
  assert.match(resultText(memory), /RTC_ERR_SANDBOX_MEMORY/);
  assert.match(resultText(thrown), /Uncaught (\(in promise\) )?Error: the script broke/);
  for (const r of [etc, home, env, net, run, spin, flood, memory, thrown]) assert.equal(r!.isError, true, resultText(r));
  assert.equal(exit!.isError, true);
  assert.equal((exit!.structuredContent as { exit_code: number }).exit_code, 7);
  assert.match(resultText(badArgs), /RTC_ERR_TOOL_ARGS: tool skill\.text-stats\.stats: args\[0\]/);
  assert.equal(hello!.isError, undefined);
  assert.equal(resultText(hello), 'hello world\n');
  // a skill without a manifest requests nothing: not even its own folder
  assert.match(resultText(self), /NotCapable: Requires read access/);
  // a script whose skill's manifest is refused is never run (nor offered: listed as a problem); a call says why
  assert.equal(refused!.isError, true);
  assert.match(resultText(refused), /^RTC_ERR_TOOL_SCRIPT: tool skill\.bad-grant\.never: its skill's manifest is refused: RTC_ERR_MANIFEST_INVALID: bad-grant\/plugin\.yaml: permissions\.read/);
  assert.deepEqual(JSON.parse(resultText(after)), { words: 2, stopwords: 0 });

  // audited: a tool_call event each, naming the script
  const events = [...readLogFiles(path.join(dir, 'state', 'ada', 'logs', 'events.jsonl'))].filter((e) => e.type === 'tool_call').map((e) => e.payload as Record<string, any>);
  assert.equal(events.length, 16);
  assert.equal(events[0]!.plugin, 'skill:shared/text-stats/scripts/stats.ts');
  assert.equal(events[0]!.ok, true);
  assert.ok(events[0]!.usage.wall_ms > 0);
  // a run that failed in the script is an answer (exit code and stderr), a refusal is not
  assert.equal(events[11]!.code, 'RTC_ERR_TOOL_ARGS');
  // recorded: every run's effects in trace/tools.jsonl (the refused calls ran nothing)
  const lines = readFileSync(path.join(dir, 'state', 'ada', 'trace', 'tools.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, 14);
  assert.equal(lines[0].calls[0].plugin, 'skill:shared/text-stats/scripts/stats.ts');
  assert.ok(lines[0].calls[0].effects.some((e: { op: string }) => e.op.includes('read')), JSON.stringify(lines[0].calls[0].effects.map((e: { op: string }) => e.op)));
  // a tools-only session opens the log as run does (through the history part): at close a shutdown checkpoint at the last call's event
  const all = [...readLogFiles(path.join(dir, 'state', 'ada', 'logs', 'events.jsonl'))];
  const backend = await openBackend(path.join(dir, 'state', 'ada'), undefined, { readonly: true });
  const checkpoint = JSON.parse(backend.events.history.readDocument('checkpoint')!);
  await backend.close();
  assert.equal(checkpoint.kind, 'shutdown');
  assert.deepEqual(checkpoint.chain, { seq: all.at(-1)!.seq, hash: all.at(-1)!.hash });
  // replayed from the record, on the recorded bundle
  const replay = await replayPersona({ stateDir: path.join(dir, 'state'), personaId: 'ada', skillsDirs: [SKILLS] });
  assert.equal(replay.divergence, null, JSON.stringify(replay.divergence));
  assert.equal(replay.tool_calls, 14);
});

test('tools list names each script with its skill, and a script that cannot be offered with why; a missing --skills-dir is one line', async () => {
  const dir = tempDir('rtc-mcp-scripts-');
  const file = persona(dir);
  const flags = ['--persona', file, '--state-dir', path.join(dir, 'state'), '--skills-dir', SKILLS];
  const listed = await runCli(['tools', 'list', ...flags], { cwd: dir, env: { PATH: process.env.PATH } });
  assert.equal(listed.status, 1, 'a problem exits 1');
  assert.match(listed.stdout, /^skill\.text-stats\.stats {2}\[skill:shared\/text-stats\/scripts\/stats\.ts\] {2}Runs scripts\/stats\.ts/m);
  assert.match(listed.stdout, /^skill:shared\/bad-grant\/scripts\/never\.ts: cannot list its tools: skill\.bad-grant\.never: its skill's manifest is refused: .*bad-grant\/plugin\.yaml: /m);
  // each tool's grant: what the skill asks ∩ what the persona allows ∩ the profile's ceiling
  const json = await runCli(['tools', 'list', ...flags, '--json'], { cwd: dir, env: { PATH: process.env.PATH } });
  const stats = JSON.parse(json.stdout).tools.find((t: { name: string }) => t.name === 'skill.text-stats.stats');
  assert.deepEqual(stats.grant, { read: [TEXT_STATS], write: [], net: [], env: [], run: [], profile: 'default', tier: 'process' });
  assert.match(listed.stdout, new RegExp(`^    may: read ${TEXT_STATS.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; write nothing; net nothing; env nothing; run nothing \\(profile default, process tier\\)$`, 'm'));
  const called = await runCli(['tools', 'call', ...flags, 'skill.text-stats.stats', '--args', '{"args":["an","owl"]}', '--json'], { cwd: dir, env: { PATH: process.env.PATH } });
  assert.equal(called.status, 0, called.stderr);
  assert.deepEqual(JSON.parse(JSON.parse(called.stdout).result.stdout), { words: 2, stopwords: 1 });
  const missing = await runCli(['tools', 'list', '--persona', file, '--skills-dir', path.join(dir, 'nope')], { cwd: dir, env: { PATH: process.env.PATH } });
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /RTC_ERR_CLI_FILE_NOT_FOUND: skills folder .*nope does not exist \(from --skills-dir\)/);
  assert.ok(existsSync(TEXT_STATS));
});
