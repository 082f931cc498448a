/** brain.json written off the main thread (when personas overlap) is the same file as the synchronous write. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { openBackend } from '../../persistence/open.ts';
import { PersonaRuntime } from '../../persona/persona-runtime.ts';
import { openLoopKernel } from '../preset.ts';
import { CACHE_DIR, fakeEnv, fakeTime, packet, profile, tempDir } from './helpers.ts';

const BRAIN = { format: 'runtimectl.brain/1', cycles: 4, note: 'ü' };

test('writeBrainAsync leaves the same bytes as writeBrain, no temp file, and refuses a read-only backend', async () => {
  const dirs = [tempDir(), tempDir()];
  const texts: string[] = [];
  for (const [i, dir] of dirs.entries()) {
    const personaDir = path.join(dir, 'ada');
    mkdirSync(personaDir, { recursive: true });
    const backend = await openBackend(personaDir, undefined, { personaId: 'ada' });
    const memory = backend.memory;
    assert.ok(memory.writeBrainAsync, 'the jsonl-fs backend writes brain.json off the main thread');
    const text = `${JSON.stringify(BRAIN, null, 2)}\n`;
    if (i === 0) memory.writeBrain(text);
    else await memory.writeBrainAsync(text);
    await assert.rejects(memory.writeBrainAsync('[1]'), /one JSON object/);
    await backend.close();
    texts.push(readFileSync(path.join(personaDir, 'brain', 'memory', 'brain.json'), 'utf8'));
    assert.deepEqual(readdirSync(path.join(personaDir, 'brain', 'memory')), ['brain.json']);
    const reader = await openBackend(personaDir, undefined, { personaId: 'ada', readonly: true });
    assert.ok(reader.memory.writeBrainAsync);
    await assert.rejects(reader.memory.writeBrainAsync(text), /read-only/);
    await reader.close();
  }
  assert.equal(texts[0], texts[1]);
});

/** Runs two personas' cycles one after the other or side by side; returns their brain.json and events texts. */
async function runTwo(sideBySide: boolean): Promise<string[]> {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const time = fakeTime();
  const kernel = await openLoopKernel({ stateDir, env: fakeEnv(), clock: time.clock, cacheDir: CACHE_DIR, spendTokens: false, entropy: (n) => Buffer.alloc(n, 7) });
  const personas = ['ada', 'bob'].map((id) => profile(dir, id, 'runtime: agent-x\nexecutor:\n  plugin: executor.none'));
  const runtimes: PersonaRuntime[] = [];
  for (const persona of personas) runtimes.push(await PersonaRuntime.open(kernel, persona));
  for (let round = 0; round < 3; round++) {
    for (const id of ['ada', 'bob']) packet(stateDir, id, 'q.md', `# Question ${round}\n`);
    if (sideBySide) await Promise.all(runtimes.map((rt) => rt.cycle()));
    else for (const rt of runtimes) await rt.cycle();
    time.advance(300_000);
  }
  await Promise.all(runtimes.map((rt) => rt.close()));
  return ['ada', 'bob'].flatMap((id) => [
    readFileSync(path.join(stateDir, id, 'brain', 'memory', 'brain.json'), 'utf8'),
    readFileSync(path.join(stateDir, id, 'logs', 'events.jsonl'), 'utf8'),
  ]);
}

test('personas cycling side by side (brain.json written off the main thread) write what they write one after the other', async () => {
  const [alone, together] = [await runTwo(false), await runTwo(true)];
  assert.equal(together.length, 4);
  for (let i = 0; i < alone.length; i++) assert.equal(together[i], alone[i]);
});
