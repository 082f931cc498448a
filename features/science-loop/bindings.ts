/**
 * What the bindings do for one persona: `ledger` is the persona's own local task ledger
 * (never a host or global one), `events` appends `plugin.<type>` events to the persona's
 * own log (a plugin cannot write the loop's event types, so it cannot forge a cycle or its
 * usage figures), `memory` reads brain memory (short- and medium-term state and
 * long-term.md). Times come from the loop's clock.
 *
 * The ledger and memory are reached through the persona's persistence backend (the loop
 * hands its own); without one, through the files of the jsonl-fs layout.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { BindingImplementations, TaskSummary } from '../../kernel/broker/bindings.ts';
import type { AppendResult } from '../../kernel/events/event-log.ts';
import { openLedger } from '../ledger/open.ts';
import { parseTaskState } from '../ledger/ledger-errors.ts';
import type { MemoryStore } from '../../kernel/contracts/persistence.ts';
import type { LedgerAccess } from '../ledger/access.ts';
import type { Clock } from '../persona/clock.ts';
import type { PersonaPaths } from '../persona-layout/layout.ts';

const MAX_LONG_TERM = 64 * 1024;

/** The persona's event log, as far as the events binding needs it (an EventLog or a backend's EventStore). */
export interface BindingLog {
  append(type: string, payload: Record<string, unknown>): Promise<AppendResult>;
}

/** What the ledger and memory bindings need from the persona's persistence backend. */
export interface BindingStores {
  ledger: Pick<LedgerAccess, 'open'>;
  memory: Pick<MemoryStore, 'readBrain' | 'readLongTerm'>;
}

/** The jsonl-fs files, for callers with no backend at hand. */
function fileStores(paths: PersonaPaths, personaId: string): BindingStores {
  return {
    ledger: { open: () => openLedger(paths.dir, { personaId }) },
    memory: {
      readBrain: () => (existsSync(paths.brainFile) ? readFileSync(paths.brainFile, 'utf8') : undefined),
      readLongTerm: () => (existsSync(paths.longTermFile) ? readFileSync(paths.longTermFile, 'utf8') : ''),
    },
  };
}

function summary(task: { id: string; title: string; state: string }): TaskSummary {
  return { id: task.id, title: task.title, state: task.state };
}

/** brain.json's object, or null when there is none or it does not parse (the loop then starts a fresh brain). */
function brainObject(text: string | undefined): Record<string, unknown> | null {
  if (text === undefined) return null;
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * `scrub` (the persona's secret values and the pattern rules) is applied to what plugins
 * write through the bindings: a task's title and description, an event's payload.
 */
export function personaBindings(
  paths: PersonaPaths,
  personaId: string,
  clock: Clock,
  log: () => BindingLog,
  stores: BindingStores = fileStores(paths, personaId),
  scrub: <T>(value: T) => T = (value) => value,
): BindingImplementations {
  return {
    ledger: {
      createTask(input, by) {
        const { store } = stores.ledger.open();
        try {
          const clean = scrub({ title: input.title, description: input.description });
          return summary(store.addTask({ title: clean.title, description: clean.description, by, now: clock() }));
        } finally {
          store.close();
        }
      },
      list(filter) {
        const { store } = stores.ledger.open();
        try {
          const state = filter.state === undefined ? undefined : parseTaskState(filter.state);
          return store.listTasks(state === undefined ? {} : { state }).map(summary);
        } finally {
          store.close();
        }
      },
    },
    events: {
      async append(type, payload, by) {
        const { seq } = await log().append(`plugin.${type}`, scrub({ ...payload, plugin: by }));
        return { seq };
      },
    },
    memory: {
      read() {
        const brain = brainObject(stores.memory.readBrain());
        return {
          short_term: brain?.short_term ?? null,
          medium_term: brain?.medium_term ?? null,
          last_cycle: brain?.last_cycle ?? null,
          long_term: stores.memory.readLongTerm().slice(0, MAX_LONG_TERM),
        };
      },
    },
  };
}
