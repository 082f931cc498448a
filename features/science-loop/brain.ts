/**
 * `brain/memory/brain.json`: the persona's short- and medium-term state, rewritten every
 * cycle through the persona's persistence backend (jsonl-fs: temp file, fsync, rename, so a
 * crash leaves the old or the new file, never half of one; sqlite: one committed row). It also holds the probe state (engine state: which packets' digests are recorded,
 * how much of the message queue is loaded, when the periodic slot last ran, which kernel
 * version ran the startup probes), so probes stay idempotent across restarts.
 *
 * A brain.json that does not parse is kept aside as the file `brain/memory/brain.json.corrupt`
 * (whatever the backend: it is evidence for an operator) and a fresh brain starts, replacing
 * it at the end of the cycle; the cycle says so.
 */
import { lstatSync, renameSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { WorkItem } from '../../kernel/contracts/executor.ts';
import type { MemoryStore } from '../../kernel/contracts/persistence.ts';
import { replaceFileDurably } from '../persistence/state/persona-storage.ts';
import type { PersonaPaths } from '../persona-layout/layout.ts';
import type { Scrubber } from '../secret-values/secret-values.ts';

export const BRAIN_FORMAT = 'runtimectl.brain/1';
/** Recent cycles kept in medium-term memory. */
export const RECENT_CYCLES = 20;
/** Recorded packet and message digests kept (older ones may be offered again if their files remain). */
export const SEEN_KEYS = 5000;
/** Loaded work kept waiting at most; beyond this the oldest is dropped (and the drop logged). */
export const MAX_PENDING = 100;

const workItemSchema = z.object({
  kind: z.enum(['packet', 'message', 'periodic']),
  key: z.string(),
  title: z.string(),
  body: z.string(),
  tier_hint: z.number().int().min(1).max(6).optional(),
});

const recentSchema = z.object({
  cycle: z.number().int(),
  phase: z.string(),
  keys: z.array(z.string()),
  outcome: z.string(),
  status: z.string().optional(),
  tier: z.number().int().optional(),
});
export type RecentCycle = z.output<typeof recentSchema>;

export const brainSchema = z.object({
  format: z.literal(BRAIN_FORMAT),
  persona_id: z.string(),
  runtime: z.string(),
  cycles: z.number().int().min(0),
  last_cycle: z
    .object({ cycle: z.number().int(), phase: z.string(), outcome: z.string(), defer_reason: z.string().nullable(), executor: z.string(), tier: z.number().int().nullable() })
    .nullable(),
  short_term: z.object({
    phase: z.string().nullable(),
    reflection: z.string(),
    plan: z.array(z.string()),
    last_message: z.string().nullable(),
  }),
  medium_term: z.object({
    recent: z.array(recentSchema),
    phase_counts: z.record(z.string(), z.number()),
    outcome_counts: z.record(z.string(), z.number()),
    tokens_spent_total: z.number(),
    sessions_total: z.number(),
  }),
  probes: z.object({
    startup_smoke_version: z.string().nullable(),
    bootstrap_version: z.string().nullable(),
    seen_keys: z.array(z.string()),
    pending: z.array(workItemSchema),
    dm_loaded_lines: z.number().int().min(0),
    periodic_last_ms: z.number().nullable(),
  }),
});
export type Brain = z.output<typeof brainSchema>;

export function freshBrain(personaId: string, runtime: string): Brain {
  return {
    format: BRAIN_FORMAT,
    persona_id: personaId,
    runtime,
    cycles: 0,
    last_cycle: null,
    short_term: { phase: null, reflection: '', plan: [], last_message: null },
    medium_term: { recent: [], phase_counts: {}, outcome_counts: {}, tokens_spent_total: 0, sessions_total: 0 },
    probes: { startup_smoke_version: null, bootstrap_version: null, seen_keys: [], pending: [], dm_loaded_lines: 0, periodic_last_ms: null },
  };
}

export interface LoadedBrain {
  brain: Brain;
  status: 'created' | 'loaded' | 'reset';
  reason?: string;
}

export function loadBrain(memory: Pick<MemoryStore, 'readBrain'>, paths: PersonaPaths, personaId: string, runtime: string): LoadedBrain {
  let text: string | undefined;
  try {
    text = memory.readBrain();
  } catch (error) {
    // Not a regular file, or over its cap: never read, never waited on. It is moved aside
    // whole (a rename reads nothing) so the fresh brain saved at the end of the cycle cannot
    // replace it, and the cycle says so.
    const aside = moveAside(paths.brainFile);
    const line = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { brain: freshBrain(personaId, runtime), status: 'reset', reason: `brain.json cannot be read (${line}); ${aside ? `moved aside as ${path.basename(aside)} and ` : ''}started a fresh brain` };
  }
  if (text === undefined) return { brain: freshBrain(personaId, runtime), status: 'created' };
  let reason: string;
  try {
    const parsed = brainSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { brain: { ...parsed.data, runtime }, status: 'loaded' };
    const issue = parsed.error.issues[0];
    reason = `brain.json did not match its schema at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`;
  } catch (error) {
    reason = `brain.json is not JSON (${(error as Error).message.split('\n')[0]})`;
  }
  replaceFileDurably(`${paths.brainFile}.corrupt`, text);
  return { brain: freshBrain(personaId, runtime), status: 'reset', reason: `${reason}; kept as brain.json.corrupt and started a fresh brain` };
}

/** Renames `file` to a free `<file>.unreadable[-n]` beside it; undefined when there is nothing there. */
function moveAside(file: string): string | undefined {
  if (lstatSync(file, { throwIfNoEntry: false }) === undefined) return undefined;
  for (let n = 1; ; n++) {
    const target = `${file}.unreadable${n === 1 ? '' : `-${n}`}`;
    if (lstatSync(target, { throwIfNoEntry: false }) !== undefined) continue;
    renameSync(file, target);
    return target;
  }
}

export function saveBrain(memory: Pick<MemoryStore, 'writeBrain'>, brain: Brain): void {
  memory.writeBrain(brainText(brain));
}

/**
 * saveBrain, with `offThread` through the store's writeBrainAsync when it has one: the same
 * bytes, durable when the promise resolves, without holding the main thread (and so the
 * other personas) through the fsync. Otherwise (one persona alone has nothing to overlap,
 * and the trip through the pool only adds a turn; or a store without it) synchronously.
 */
export async function saveBrainDurably(memory: Pick<MemoryStore, 'writeBrain' | 'writeBrainAsync'>, brain: Brain, options: { offThread: boolean }): Promise<void> {
  if (options.offThread && memory.writeBrainAsync) await memory.writeBrainAsync(brainText(brain));
  else saveBrain(memory, brain);
}

function brainText(brain: Brain): string {
  return `${JSON.stringify(brain, null, 2)}\n`;
}

/**
 * The brain as it is saved: the parts that hold text from outside the kernel (the short-term
 * reflection and last message, the last defer reason, pending work) with the persona's
 * secrets scrubbed (by value and pattern). The rest is the kernel's own (digests, counters),
 * and is not walked every cycle.
 */
export function scrubBrain(brain: Brain, scrub: Pick<Scrubber, 'deep'>): Brain {
  const shortTerm = scrub.deep(brain.short_term);
  const lastCycle = scrub.deep(brain.last_cycle);
  const pending = scrub.deep(brain.probes.pending);
  if (shortTerm === brain.short_term && lastCycle === brain.last_cycle && pending === brain.probes.pending) return brain;
  return { ...brain, short_term: shortTerm, last_cycle: lastCycle, probes: { ...brain.probes, pending } };
}

/** Adds work to the pending list, oldest dropped beyond the cap; returns what was dropped. */
export function addPending(brain: Brain, items: readonly WorkItem[]): WorkItem[] {
  brain.probes.pending.push(...items);
  const over = brain.probes.pending.length - MAX_PENDING;
  return over > 0 ? brain.probes.pending.splice(0, over) : [];
}

export function rememberKeys(brain: Brain, keys: readonly string[]): void {
  brain.probes.seen_keys.push(...keys);
  if (brain.probes.seen_keys.length > SEEN_KEYS) brain.probes.seen_keys.splice(0, brain.probes.seen_keys.length - SEEN_KEYS);
}
