/**
 * The invariants a ledger must hold, checked on its backend-neutral export so both backends
 * (and an export about to be imported) are judged by the same rules:
 *
 * - every task's history starts at `proposed`, chains (each entry starts where the last
 *   ended), takes only legal edges, and ends at the task's state;
 * - a blocked task remembers the state it was blocked from, and only a blocked task does;
 * - every task an open surprise names is blocked, and a surprise-block has an open surprise;
 * - checkpoints belong to known tasks and are numbered 1..n per task;
 * - ids are unique and the id counters are past every id handed out;
 * - a lease's expiry is its last renewal plus its ttl.
 */
import { isLegalTransition, type TaskState } from './lifecycle.ts';
import { idNumber, type LedgerExport } from './records.ts';

export interface LedgerProblem {
  /** Where in the ledger: `task T-0003 history[2]`, `surprise S-0001`, ... */
  position: string;
  problem: string;
}

export function findLedgerProblems(doc: LedgerExport): LedgerProblem[] {
  const problems: LedgerProblem[] = [];
  const add = (position: string, problem: string) => problems.push({ position, problem });

  const tasks = new Map(doc.tasks.map((t) => [t.id, t]));
  if (tasks.size !== doc.tasks.length) add('tasks', 'two tasks share one id');
  const surprises = new Map(doc.surprises.map((s) => [s.id, s]));
  if (surprises.size !== doc.surprises.length) add('surprises', 'two surprises share one id');
  const maxTask = Math.max(0, ...doc.tasks.map((t) => idNumber(t.id)));
  if (doc.counters.task < maxTask) add('counters.task', `counter ${doc.counters.task} is behind task number ${maxTask}; ids would repeat`);
  const maxSurprise = Math.max(0, ...doc.surprises.map((s) => idNumber(s.id)));
  if (doc.counters.surprise < maxSurprise) add('counters.surprise', `counter ${doc.counters.surprise} is behind surprise number ${maxSurprise}; ids would repeat`);

  const openAffecting = (taskId: string) => doc.surprises.filter((s) => s.state === 'open' && s.affects.includes(taskId));

  for (const task of doc.tasks) {
    const where = `task ${task.id}`;
    const history = task.history;
    const first = history[0];
    if (first === undefined) {
      add(where, 'has no history');
      continue;
    }
    if (first.from !== null || first.to !== 'proposed') add(`${where} history[0]`, `a task starts as proposed, not ${first.from ?? '(none)'} → ${first.to}`);
    for (let i = 1; i < history.length; i++) {
      const entry = history[i]!;
      const previous = history[i - 1]!;
      if (entry.from !== previous.to) {
        add(`${where} history[${i}]`, `starts from ${entry.from ?? '(none)'} but the task was ${previous.to}`);
        continue;
      }
      const blockedFrom: TaskState | null = entry.from === 'blocked' ? previous.from : null;
      if (entry.from !== null && !isLegalTransition(entry.from, entry.to, blockedFrom)) {
        add(`${where} history[${i}]`, `${entry.from} → ${entry.to} is not a legal transition`);
      }
    }
    const last = history[history.length - 1]!;
    if (last.to !== task.state) add(where, `state is ${task.state} but its history ends at ${last.to}`);
    if (task.state === 'blocked') {
      if (task.blockedFrom !== last.from) add(where, `blocked from ${task.blockedFrom ?? '(none)'} but its history says ${last.from ?? '(none)'}`);
      if (task.blockedBySurprise && openAffecting(task.id).length === 0) add(where, 'blocked by a surprise, but no open surprise names it');
    } else if (task.blockedFrom !== null || task.blockedBySurprise) {
      add(where, `is ${task.state} but still carries a block`);
    }
  }

  for (const surprise of doc.surprises) {
    const where = `surprise ${surprise.id}`;
    for (const taskId of surprise.affects) {
      const task = tasks.get(taskId);
      if (task === undefined) add(where, `names task ${taskId}, which is not in the ledger`);
      else if (surprise.state === 'open' && task.state !== 'blocked') add(where, `is open but task ${taskId} it names is ${task.state}, not blocked`);
    }
    const resolvedFields = [surprise.resolvedAt, surprise.resolvedBy, surprise.outcome];
    if (surprise.state === 'resolved' && resolvedFields.some((f) => f === null)) add(where, 'is resolved without a time, a resolver and an outcome');
    if (surprise.state === 'open' && resolvedFields.some((f) => f !== null)) add(where, 'is open but carries a resolution');
  }

  const seqs = new Map<string, number>();
  for (const checkpoint of doc.checkpoints) {
    const where = `checkpoint ${checkpoint.taskId}#${checkpoint.seq}`;
    if (!tasks.has(checkpoint.taskId)) add(where, `belongs to task ${checkpoint.taskId}, which is not in the ledger`);
    const expected = (seqs.get(checkpoint.taskId) ?? 0) + 1;
    if (checkpoint.seq !== expected) add(where, `is numbered ${checkpoint.seq} where ${expected} was expected`);
    seqs.set(checkpoint.taskId, checkpoint.seq);
  }

  const resources = new Set<string>();
  for (const lease of doc.leases) {
    const where = `lease "${lease.resource}"`;
    if (resources.has(lease.resource)) add(where, 'is held twice');
    resources.add(lease.resource);
    if (lease.expiresAt !== lease.renewedAt + lease.ttlMs) add(where, `expires at ${lease.expiresAt}, not at its last renewal ${lease.renewedAt} plus ttl ${lease.ttlMs}`);
    if (lease.renewedAt < lease.acquiredAt) add(where, 'was renewed before it was acquired');
  }

  return problems;
}
