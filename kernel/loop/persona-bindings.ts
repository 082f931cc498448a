/**
 * What the bindings do for one persona: `ledger` is the persona's own local task ledger
 * (never a host or global one), `events` appends `plugin.<type>` events to the persona's
 * own log (a plugin cannot write the loop's event types, so it cannot forge a cycle or its
 * usage figures), `memory` reads brain memory (short- and medium-term state and
 * long-term.md). Times come from the loop's clock.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { BindingImplementations, TaskSummary } from '../broker/ops/bindings.ts';
import type { EventLog } from '../events/event-log.ts';
import { openLedger } from '../ledger/open.ts';
import { parseTaskState } from '../ledger/lifecycle.ts';
import type { Clock } from './clock.ts';
import type { PersonaPaths } from './layout.ts';

const MAX_LONG_TERM = 64 * 1024;

function summary(task: { id: string; title: string; state: string }): TaskSummary {
  return { id: task.id, title: task.title, state: task.state };
}

export function personaBindings(paths: PersonaPaths, personaId: string, clock: Clock, log: () => EventLog): BindingImplementations {
  return {
    ledger: {
      createTask(input, by) {
        const { store } = openLedger(paths.dir, { personaId });
        try {
          return summary(store.addTask({ title: input.title, description: input.description, by, now: clock() }));
        } finally {
          store.close();
        }
      },
      list(filter) {
        const { store } = openLedger(paths.dir, { personaId });
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
        const { seq } = await log().append(`plugin.${type}`, { ...payload, plugin: by });
        return { seq };
      },
    },
    memory: {
      read() {
        const brain = existsSync(paths.brainFile) ? (JSON.parse(readFileSync(paths.brainFile, 'utf8')) as Record<string, unknown>) : null;
        const longTerm = existsSync(paths.longTermFile) ? readFileSync(paths.longTermFile, 'utf8').slice(0, MAX_LONG_TERM) : '';
        return {
          short_term: brain?.short_term ?? null,
          medium_term: brain?.medium_term ?? null,
          last_cycle: brain?.last_cycle ?? null,
          long_term: longTerm,
        };
      },
    },
  };
}
