/**
 * Issue 27, item 9b, with real isolates: a tool call ended by its CPU limit is charged what
 * it used (at least the limit), for a plugin tool in either tier and for a skill script; and
 * calls made at once hold their limits of the persona's tool budget from admission, so a
 * budget that admits one call admits one, however many arrive together. The kernel serves
 * the persona's other tools (and the next cycle's budget) all the while.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readEvents } from '../../../kernel/events/verify.ts';
import { openToolSource } from '../tool-source.ts';
import { openLoopKernel } from '../../science-loop/preset.ts';
import { tempDir, testIo, toolPersona, wordsPlugin, writePlugin } from './fixtures.ts';

/** tool.words (process tier, 300 ms CPU a call) and tool.trusted-spin (in-process tier, 200 ms), a skill whose script spins; a persona with `cpu` CPU seconds a cycle. */
function setup(cpu: number) {
  const dir = tempDir('rtc-budget-');
  const plugins = path.join(dir, 'plugins');
  wordsPlugin(plugins);
  writePlugin(
    plugins,
    'tool-trusted-spin',
    `id: tool.trusted-spin
version: 1.0.0
kind: tool
entry: mod.ts
description: Spins in an in-process isolate.
sandbox: trusted
limits: { cpuMs: 200 }
exports: [spin]
tools:
  - export: spin
    description: Never ends.
    input_schema: { type: object }
`,
    'export function spin() { for (;;) {} }\n',
  );
  const skills = path.join(dir, 'skills');
  mkdirSync(path.join(skills, 'spinner', 'scripts'), { recursive: true });
  writeFileSync(path.join(skills, 'spinner', 'SKILL.md'), '---\nname: spinner\ndescription: A script that never ends.\n---\n\n# spinner\n');
  writeFileSync(path.join(skills, 'spinner', 'scripts', 'spin.ts'), 'for (;;) {}\n');
  const persona = toolPersona(dir, 'bea', ['tool.words', 'tool.trusted-spin'], '', 'skills: [spinner]\n');
  writeFileSync(persona, readFileSync(persona, 'utf8').replace('budget: { daily_tokens: 1000 }', `budget: { daily_tokens: 1000, cpu_seconds_per_cycle: ${cpu} }`));
  return { dir, plugins, skills, persona };
}

async function open(s: ReturnType<typeof setup>) {
  return openToolSource({ openKernel: openLoopKernel, persona: s.persona, stateDir: path.join(s.dir, 'state'), pluginsDirs: [s.plugins], skillsDirs: [s.skills], via: 'cli' }, testIo(s.dir));
}

function toolCalls(s: ReturnType<typeof setup>): { tool: string; ok: boolean; code: string | null; usage: { cpu_ms: number; wall_ms: number } }[] {
  return [...readEvents(path.join(s.dir, 'state', 'bea', 'logs', 'events.jsonl'))]
    .filter((e) => e.type === 'tool_call')
    .map((e) => (e as unknown as { payload: { tool: string; ok: boolean; code: string | null; usage: { cpu_ms: number; wall_ms: number } } }).payload);
}

/** An assert.rejects check of the error's code. */
const coded = (code: string) => (error: { code?: string }) => error.code === code;

const codeOf = (r: PromiseSettledResult<unknown>): string => (r.status === 'fulfilled' ? 'ok' : String((r.reason as { code?: string }).code));

test('calls made at once hold their limits from admission: a budget that admits one call admits one of four', async () => {
  const s = setup(0.3);
  const source = await open(s);
  try {
    const settled = await Promise.allSettled([0, 1, 2, 3].map(() => source.call('tool.words.spin', {})));
    const codes = settled.map(codeOf).sort();
    assert.deepEqual(codes, ['RTC_ERR_SANDBOX_CPU', 'RTC_ERR_TOOL_BUDGET', 'RTC_ERR_TOOL_BUDGET', 'RTC_ERR_TOOL_BUDGET'], 'one ran to its limit, three were refused at admission');
    const refused = settled.find((r) => codeOf(r) === 'RTC_ERR_TOOL_BUDGET') as PromiseRejectedResult;
    assert.match(String(refused.reason.message), /spent the cycle's CPU time \(0 ms and 300 ms held by 1 call\(s\) in flight of 300 ms\)/);
    const ran = toolCalls(s).filter((c) => c.code === 'RTC_ERR_SANDBOX_CPU');
    assert.equal(ran.length, 1);
    assert.ok(ran[0]!.usage.cpu_ms >= 300, `the call ended by its CPU limit is charged at least the limit (${ran[0]!.usage.cpu_ms} ms)`);
    assert.ok(toolCalls(s).filter((c) => c.code === 'RTC_ERR_TOOL_BUDGET').every((c) => c.usage.cpu_ms === 0), 'a refused call is charged nothing');
    // Spent now: the next call, alone, is refused too.
    await assert.rejects(source.call('tool.words.count', { text: 'a b' }), (error: { code?: string; message: string }) => error.code === 'RTC_ERR_TOOL_BUDGET' && /spent the cycle's CPU time \(3\d\d ms of 300 ms\)/.test(error.message));
  } finally {
    await source.close();
  }
});

test('with room for two, two of five calls at once run; their charges add up to what they used', async () => {
  const s = setup(0.6);
  const source = await open(s);
  try {
    const codes = (await Promise.allSettled([0, 1, 2, 3, 4].map(() => source.call('tool.words.spin', {})))).map(codeOf).sort();
    assert.deepEqual(codes, ['RTC_ERR_SANDBOX_CPU', 'RTC_ERR_SANDBOX_CPU', 'RTC_ERR_TOOL_BUDGET', 'RTC_ERR_TOOL_BUDGET', 'RTC_ERR_TOOL_BUDGET']);
    const charged = toolCalls(s).filter((c) => c.code === 'RTC_ERR_SANDBOX_CPU').map((c) => c.usage.cpu_ms);
    assert.equal(charged.length, 2);
    for (const cpu of charged) assert.ok(cpu >= 300, `each is charged at least its limit (${charged.join(', ')})`);
  } finally {
    await source.close();
  }
});

test('a call ended by its CPU limit is charged at least the limit: an in-process plugin, and a skill script (which was charged 0)', async () => {
  const s = setup(0.2);
  const source = await open(s);
  try {
    await assert.rejects(source.call('tool.trusted-spin.spin', {}), coded('RTC_ERR_SANDBOX_CPU'));
    await assert.rejects(source.call('tool.words.count', { text: 'x' }), coded('RTC_ERR_TOOL_BUDGET'), 'the in-process call spent the cycle');
  } finally {
    await source.close();
  }
  const charged = toolCalls(s).find((c) => c.tool === 'tool.trusted-spin.spin')!;
  assert.ok(charged.usage.cpu_ms >= 200, `in-process: ${charged.usage.cpu_ms} ms`);

  const t = setup(0.2);
  const scripts = await open(t);
  try {
    // A script's limit is the persona's CPU seconds (200 ms): the run ends on it, as a tool error in its answer.
    const result = (await scripts.call('skill.spinner.spin', { args: [] })) as { exit_code: number; stderr: string };
    assert.equal(result.exit_code, 1);
    assert.match(result.stderr, /RTC_ERR_SANDBOX_CPU/);
    await assert.rejects(scripts.call('skill.spinner.spin', { args: [] }), coded('RTC_ERR_TOOL_BUDGET'), 'the first run spent the budget: the second is refused');
  } finally {
    await scripts.close();
  }
  const script = toolCalls(t).find((c) => c.tool === 'skill.spinner.spin' && c.ok)!;
  assert.ok(script.usage.cpu_ms >= 200, `the script run ended by its CPU limit is charged ${script.usage.cpu_ms} ms, at least its limit`);
});
