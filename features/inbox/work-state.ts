/**
 * What a persona has done with the work it was given: read from its brain.json through its
 * persistence backend, read-only (the persona may be running; nothing is locked or written).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { openBackend } from '../persistence/open.ts';
import type { WorkState } from './work.ts';

/** The persona's work state; undefined when it has never run (no state), null when its brain cannot be read (with why). */
export async function readWorkState(personaDir: string, personaId: string): Promise<{ state: WorkState | undefined | null; problem?: string }> {
  if (!existsSync(personaDir)) return { state: undefined };
  let text: string | undefined;
  try {
    const backend = await openBackend(personaDir, undefined, { readonly: true, personaId });
    try {
      text = backend.memory.readBrain();
    } finally {
      await backend.close();
    }
  } catch (error) {
    return { state: null, problem: (error as Error).message };
  }
  if (text === undefined) return { state: undefined };
  try {
    const brain = JSON.parse(text) as { probes?: { seen_keys?: unknown; pending?: { key?: unknown }[]; dm_loaded_lines?: unknown } };
    const probes = brain.probes ?? {};
    const seen = new Set(Array.isArray(probes.seen_keys) ? probes.seen_keys.filter((k): k is string => typeof k === 'string') : []);
    const pending = new Set(Array.isArray(probes.pending) ? probes.pending.map((p) => p?.key).filter((k): k is string => typeof k === 'string') : []);
    return { state: { seen, pending, dmLoadedLines: typeof probes.dm_loaded_lines === 'number' ? probes.dm_loaded_lines : 0 } };
  } catch {
    return { state: null, problem: `${path.join(personaDir, 'brain', 'memory', 'brain.json')} does not parse` };
  }
}
