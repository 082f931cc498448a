/** Shared set-up for the loop tests: temp state dirs, profiles written to files, a fixed clock, fake CLIs on PATH. */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EventEnvelope } from '../../../kernel/events/envelope.ts';
import { readLogFiles } from '../../history-segments/file-log.ts';
import { readPersonaFile } from '../../profiles/load.ts';
import type { LoadedPersona } from '../../../kernel/personas/profile-schema.ts';
import type { RunOptions } from '../run-personas.ts';
import type { ScienceRun as PersonaRun } from '../report.ts';
import { runPersonas, type DefaultLoopOptions } from '../preset.ts';
import type { Sleep } from '../../persona/clock.ts';

export const FAKE_BIN = path.resolve(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'bin');
/** One bundle and code cache for every test in a file. */
export const CACHE_DIR = mkdtempSync(path.join(os.tmpdir(), 'rtc-loop-cache-'));
export const T0 = Date.parse('2026-03-01T08:00:00.000Z');

export function tempDir(prefix = 'rtc-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** The environment a test run gets: the fake codex and claude first on PATH, nothing else of the host's. */
export function fakeEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: `${FAKE_BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: os.tmpdir(), ...extra };
}

/** A clock the loop reads and a sleep that advances it instead of waiting. */
export function fakeTime(start = T0): { clock: () => number; sleep: Sleep; advance: (ms: number) => void } {
  let now = start;
  return { clock: () => now, sleep: async (ms) => void (now += ms), advance: (ms) => void (now += ms) };
}

/** Writes a profile YAML (fields merged into a small default) and loads it. */
export function profile(dir: string, id: string, body: string): LoadedPersona {
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(file, `id: ${id}\n${body.trim()}\n`);
  return readPersonaFile(file, dir);
}

export function packet(stateDir: string, personaId: string, name: string, text: string): void {
  const inbox = path.join(stateDir, personaId, 'inbox');
  mkdirSync(inbox, { recursive: true });
  writeFileSync(path.join(inbox, name), text);
}

export async function run(personas: LoadedPersona[], options: Partial<Omit<RunOptions, 'composition'>> & Partial<DefaultLoopOptions> & { stateDir: string }): Promise<PersonaRun[]> {
  return runPersonas(personas, { env: fakeEnv(), cacheDir: CACHE_DIR, cycles: 1, everySeconds: 0, ...options });
}

export function events(stateDir: string, personaId: string): EventEnvelope[] {
  return [...readLogFiles(path.join(stateDir, personaId, 'logs', 'events.jsonl'))];
}

export function cycleEvents(stateDir: string, personaId: string): Record<string, any>[] {
  return events(stateDir, personaId)
    .filter((e) => e.type === 'continuous_loop_cycle')
    .map((e) => e.payload as Record<string, any>);
}

export function readJson(file: string): any {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** The API host each provider CLI is granted in test profiles (the fakes never connect). */
const PROVIDER_HOSTS: Record<string, string> = { 'executor.codex': 'api.openai.com', 'executor.claude': 'api.anthropic.com' };

/** A budgeted persona running `executor` with the fake CLIs allowed, and its provider's host granted. */
export function budgeted(dir: string, id: string, executor: string, extra = ''): LoadedPersona {
  return profile(
    dir,
    id,
    `runtime: agent-${id}
executor:
  plugin: ${executor}
${extra}
budget:
  daily_tokens: 200000
  max_tokens_per_session: 50000
  min_tokens_remaining_for_executor: 1000
  max_autonomous_sessions_per_day: 5
  wall_seconds_per_cycle: 20
allow:
  read: ["\${state}"]
  write: ["\${state}"]
  run: [codex, claude, sh]
  net: [${PROVIDER_HOSTS[executor] ?? ''}]
  env: [ORCHESTRA_DB, ORCHESTRA_DB_PATH]
bindings: [ledger, events, memory]`,
  );
}
