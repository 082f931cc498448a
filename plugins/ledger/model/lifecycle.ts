/**
 * The task lifecycle as one table. Everything else (the store's checks, the consistency
 * check, the transition tests) reads this table, so the legal edges are written down once.
 *
 *   proposed → ready → implementing → verification → integration → accepted
 *
 * Decisions (features/ledger/README.md repeats them):
 * - Work that is still in flight (every state except `accepted` and `blocked`) may be
 *   `blocked`, by hand or by a surprise that names the task.
 * - `blocked` leads back only to the state the task was blocked from: a block pauses the
 *   work, it never skips or rewinds it.
 * - `verification` and `integration` may send work to `revision` (a failed challenge or a
 *   combined-snapshot failure); `revision` leads back to `implementing`.
 * - `accepted` is final: acceptance is scoped to one procedure, and new doubt about it is
 *   a new task, not an edit of the old record.
 */
import { ledgerError } from './ledger-error.ts';

export const TASK_STATES = [
  'proposed',
  'ready',
  'implementing',
  'verification',
  'integration',
  'accepted',
  'blocked',
  'revision',
] as const;

export type TaskState = (typeof TASK_STATES)[number];

/** Edges out of every state but `blocked`, whose only edge depends on where it came from. */
export const TRANSITIONS: Readonly<Record<TaskState, readonly TaskState[]>> = {
  proposed: ['ready', 'blocked'],
  ready: ['implementing', 'blocked'],
  implementing: ['verification', 'blocked'],
  verification: ['integration', 'revision', 'blocked'],
  integration: ['accepted', 'revision', 'blocked'],
  revision: ['implementing', 'blocked'],
  accepted: [],
  blocked: [],
};

/** States a task may be blocked from: work still in flight. */
export const BLOCKABLE_STATES: readonly TaskState[] = TASK_STATES.filter((s) => TRANSITIONS[s].includes('blocked'));

export function isTaskState(value: string): value is TaskState {
  return (TASK_STATES as readonly string[]).includes(value);
}

/** The states a task may move to next; a blocked task only back to where it was. */
export function legalTargets(state: TaskState, blockedFrom: TaskState | null): readonly TaskState[] {
  if (state === 'blocked') return blockedFrom === null ? [] : [blockedFrom];
  return TRANSITIONS[state];
}

export function isLegalTransition(from: TaskState, to: TaskState, blockedFrom: TaskState | null): boolean {
  return legalTargets(from, blockedFrom).includes(to);
}

/** Refuses an illegal move with the current state and the legal targets named. */
export function assertTransition(taskId: string, from: TaskState, to: TaskState, blockedFrom: TaskState | null): void {
  if (isLegalTransition(from, to, blockedFrom)) return;
  const targets = legalTargets(from, blockedFrom);
  const legal =
    targets.length > 0
      ? `legal next states: ${targets.join(', ')}${from === 'blocked' ? ' (the state it was blocked from)' : ''}`
      : `no legal next states (${from} is final)`;
  throw ledgerError('RTC_ERR_LEDGER_TRANSITION', `task ${taskId} is "${from}" and cannot move to "${to}"; ${legal}`, { task: taskId, from, to, legal: [...targets] });
}

/** Parses a state named on a command line or in an API call. */
export function parseTaskState(value: string): TaskState {
  if (isTaskState(value)) return value;
  throw ledgerError('RTC_ERR_LEDGER_INPUT', `unknown task state "${value}"; states are ${TASK_STATES.join(', ')}`, { state: value });
}
