/** Set-up shared by the replay tests: a persona whose cycles call plugins that make effects. */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LoadedPersona } from '../../kernel/personas/profile-schema.ts';
import { budgeted, FAKE_BIN } from '../../features/science-loop/test/helpers.ts';

/**
 * A persona running the codex executor (the fake CLI in test/fixtures/bin) on an hourly
 * patrol slot, so with the clock stepped an hour per cycle every cycle has work: the
 * executor's describe and run and the budget policy's assess are called, and the run spawns
 * a command, reads the env and writes session files, all through the broker.
 */
export function patrolPersona(dir: string, id: string): LoadedPersona {
  return budgeted(dir, id, 'executor.codex', 'cadence:\n  cycle_seconds: 3600\n  periodic_seconds: 3600');
}

/** The environment both a child kernel and an in-process one get (plugins read it). */
export function pinnedEnv(home: string): Record<string, string> {
  return { PATH: `${FAKE_BIN}:/usr/local/bin:/usr/bin:/bin`, HOME: home };
}

export function readText(file: string): string {
  return readFileSync(file, 'utf8');
}

export function traceFile(stateDir: string, personaId: string): string {
  return path.join(stateDir, personaId, 'trace', 'cycles.jsonl');
}

/** Rewrites one line of a file with `edit`. */
export function editLine(file: string, index: number, edit: (line: string) => string): void {
  const lines = readText(file).split('\n');
  lines[index] = edit(lines[index]!);
  writeFileSync(file, lines.join('\n'));
}
