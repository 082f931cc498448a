/**
 * A persona page's data: its recent cycles with their decisions, executor sessions, ledger
 * tasks and leases, and proposals. Cycles come from the history's read path (the events
 * after a recent seq, so only the segments that hold them are read); the ledger and the
 * review queue are opened read-only. Each part fails on its own: a ledger that cannot be read
 * is shown as an error beside cycles that can.
 */
import { existsSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { errorLine, kernelError } from '../../kernel/errors.ts';
import { readFileBeneath } from '../../sandboxes/fs-safety/no-follow.ts';
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { openPersonaReviewQueue, type Proposal } from '../review-queue/index.ts';
import { openLedger } from '../ledger/open.ts';
import type { Lease, Task } from '../../plugins/ledger/model/records.ts';
import { openHistoryReader, type PersonaSummary } from '../history/read-path.ts';
import { CYCLE_EVENT } from '../history/usage.ts';
import { persistenceProvider } from '../persistence/provider.ts';
import { reviewStatus } from '../status/status.ts';

/** How many recent events a persona page looks through for its cycles. */
const RECENT_EVENTS = 600;
export const RECENT_CYCLES = 50;

export interface CycleView {
  cycle: number;
  seq: number;
  at: string;
  phase: string;
  outcome: string;
  /** the value-of-information tier and its reason, or the defer reason */
  tier: string;
  reason: string;
  /** proposals applied at this cycle's boundary */
  applied: string[];
  /** accepted proposals the boundary held (not ratified, evidence moved), and the alerts the cycle recorded */
  held: string[];
  alerts: number;
  session?: { run_id: string; status: string | null; last_message: string | null; files: string[] };
}

/** One cycle event as the console shows it (also what the live stream sends). */
export function cycleView(e: EventEnvelope): CycleView {
  const p = e.payload as Record<string, any>;
  const d = p.budget_decision as { tier?: number; tier_name?: string; reason?: string; action?: string } | null | undefined;
  const session = p.executor_session as { run_id?: string; status?: string | null; last_message?: string | null; files?: string[] } | null | undefined;
  const applied = Array.isArray(p.review?.applied) ? (p.review.applied as unknown[]).map(String) : [];
  const held = Array.isArray(p.review?.held) ? (p.review.held as { id?: unknown }[]).map((h) => String(h.id)) : [];
  const alerts = Array.isArray(p.review?.alerts) ? p.review.alerts.length : 0;
  return {
    cycle: Number(p.cycle),
    seq: e.seq,
    at: e.at,
    phase: String(p.phase ?? ''),
    outcome: String(p.outcome ?? ''),
    tier: d?.tier !== undefined ? `tier ${d.tier} (${d.tier_name ?? ''}) → ${String(d.action ?? '').replaceAll('_', ' ')}` : '-',
    reason: String(p.defer_reason ?? d?.reason ?? ''),
    applied,
    held,
    alerts,
    ...(session?.run_id ? { session: { run_id: session.run_id, status: session.status ?? null, last_message: session.last_message ?? null, files: session.files ?? [] } } : {}),
  };
}

export interface PersonaPage {
  summary: PersonaSummary;
  cycles: CycleView[];
  tasks: Task[] | { error: string };
  leases: Lease[] | { error: string };
  proposals: Proposal[] | { error: string };
  /** the review queue's held proposals and alerts of the last 24 h (null: never a proposal) */
  attention: Awaited<ReturnType<typeof reviewStatus>>;
}

export async function readPersonaPage(stateDir: string, personaId: string, nowMs: number): Promise<PersonaPage> {
  const dir = path.join(stateDir, personaId);
  const reader = await openHistoryReader(stateDir, personaId);
  let summary: PersonaSummary;
  let cycles: CycleView[];
  try {
    summary = reader.summary(nowMs);
    const head = summary.history.head?.seq ?? 0;
    cycles = reader
      .eventsAfter(Math.max(0, head - RECENT_EVENTS))
      .filter((e) => e.type === CYCLE_EVENT)
      .map(cycleView)
      .slice(-RECENT_CYCLES)
      .reverse();
  } finally {
    await reader.close();
  }
  let tasks: PersonaPage['tasks'];
  let leases: PersonaPage['leases'];
  try {
    const { store } = openLedger(dir, { readonly: true, personaId });
    try {
      tasks = store.listTasks();
      leases = store.listLeases();
    } finally {
      store.close();
    }
  } catch (error) {
    tasks = { error: errorLine(error) };
    leases = tasks;
  }
  return { summary, cycles, tasks, leases, proposals: await readProposals(dir), attention: await reviewStatus(dir, nowMs) };
}

export async function readProposals(personaDir: string): Promise<Proposal[] | { error: string }> {
  try {
    const queue = await openPersonaReviewQueue(personaDir, persistenceProvider, { readonly: true });
    try {
      return queue.list();
    } finally {
      await queue.close();
    }
  } catch (error) {
    return { error: errorLine(error) };
  }
}

/** The files a session folder may show (what the executors write: executor-shared). */
export const SESSION_FILES = ['prompt.md', 'stdout.txt', 'stderr.txt', 'last-message.md', 'manifest.json'] as const;
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** A file shown on a page is cut at this size (the rest is a note, not the bytes). */
export const SHOW_BYTES = 256 * 1024;
/** A session file larger than this is not read at all (an executor's output is capped far below). */
const SESSION_READ_CAP = 128 * 1024 * 1024;

export interface SessionFile {
  name: string;
  text?: string;
  truncated?: number;
  missing?: boolean;
}

/**
 * A session's files, read from `<persona>/brain/sessions/<run>/` only: its command could write
 * that folder, so each file is read through sandboxes/fs-safety/no-follow.ts from the state
 * directory (no link followed on the way or at the file, no hard link, no FIFO that would hang
 * the console); such a file is shown as missing.
 */
export function readSession(stateDir: string, personaId: string, runId: string): SessionFile[] {
  if (!RUN_ID.test(runId)) throw kernelError('RTC_ERR_CONSOLE_NOT_FOUND', `no session ${JSON.stringify(runId)}: a session id is letters, digits, dots, dashes and underscores`);
  const sessions = path.join(stateDir, personaId, 'brain', 'sessions');
  const dir = path.join(sessions, runId);
  if (!existsSync(dir) || !lstatSync(dir).isDirectory()) throw kernelError('RTC_ERR_CONSOLE_NOT_FOUND', `persona ${personaId} has no session ${runId}`);
  return SESSION_FILES.map((name) => {
    let bytes: Buffer | undefined;
    try {
      bytes = readFileBeneath(path.join(dir, name), { anchor: stateDir, maxBytes: SESSION_READ_CAP });
    } catch {
      return { name, missing: true };
    }
    if (bytes === undefined) return { name, missing: true };
    return bytes.length > SHOW_BYTES ? { name, text: bytes.subarray(0, SHOW_BYTES).toString('utf8'), truncated: bytes.length } : { name, text: bytes.toString('utf8') };
  });
}
