/**
 * A persona's files under the state directory, as the spec lays them out:
 *
 *   <state>/<persona>/brain/memory/brain.json     short- and medium-term state, every cycle
 *   <state>/<persona>/brain/memory/long-term.md   stable promotions only (never written by the loop)
 *       (brain.json, long-term.md and logs/events.jsonl are where the default jsonl-fs
 *       persistence backend keeps them; a persona whose persistence.yaml names sqlite keeps
 *       them in persistence.db instead, and the loop reaches them through the backend)
 *   <state>/<persona>/brain/sessions/<run-id>/    one folder per executor session
 *   <state>/<persona>/brain/workspace/            the persistent per-persona workspace
 *   <state>/<persona>/brain/artifacts/
 *   <state>/<persona>/orchestra/                  the local task ledger (features/ledger)
 *   <state>/<persona>/logs/events.jsonl           the hash-chained event log
 *   <state>/<persona>/inbox/                      work packets: one file each
 *   <state>/<persona>/dm/queue.jsonl              the direct-message queue: one JSON object a line
 *
 * Paths that leave the kernel (events, status, summaries) are written relative to the
 * state directory, never as host paths.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { eventLogPath } from '../../kernel/events/paths.ts';
import type { MemoryStore } from '../../kernel/contracts/persistence.ts';
import type { PersonaPaths } from '../../kernel/loop/persona-paths.ts';

/** The shape is the kernel's (a step gets it from the loop); this file lays it out. */
export type { PersonaPaths } from '../../kernel/loop/persona-paths.ts';

/** The id of the persistent workspace prepared under brain/workspace/. */
export const WORKSPACE_ID = 'main';

export function personaPaths(stateDir: string, personaId: string): PersonaPaths {
  const dir = path.join(stateDir, personaId);
  const brainDir = path.join(dir, 'brain');
  const memoryDir = path.join(brainDir, 'memory');
  return {
    stateDir,
    dir,
    brainDir,
    memoryDir,
    brainFile: path.join(memoryDir, 'brain.json'),
    longTermFile: path.join(memoryDir, 'long-term.md'),
    sessionsDir: path.join(brainDir, 'sessions'),
    workspaceRoot: path.join(brainDir, 'workspace'),
    artifactsDir: path.join(brainDir, 'artifacts'),
    orchestraDir: path.join(dir, 'orchestra'),
    inboxDir: path.join(dir, 'inbox'),
    dmQueueFile: path.join(dir, 'dm', 'queue.jsonl'),
    logFile: eventLogPath(stateDir, personaId),
  };
}

/** The prepared workspace folder (prepareWorkspace's `<root>/workspaces/<id>`). */
export function workspaceDir(paths: PersonaPaths): string {
  return path.join(paths.workspaceRoot, 'workspaces', WORKSPACE_ID);
}

const LONG_TERM_HEADER = `# Long-term memory

Stable promotions only: a fact, verdict or method earns a place here after reflection or an
explicit task, never by being recent. The loop itself does not write this file.
`;

/**
 * Creates the brain folders, and long-term.md with its header in the persona's persistence
 * backend (the file for jsonl-fs) when it holds none; true when the brain did not exist yet.
 */
export function ensureBrainLayout(paths: PersonaPaths, memory: Pick<MemoryStore, 'isEmpty' | 'appendLongTerm'>): boolean {
  const empty = memory.isEmpty();
  const created = !existsSync(paths.memoryDir) && empty;
  try {
    // Runs every cycle and the folders almost always exist: one stat each, where mkdirSync
    // (recursive) costs a mkdir and a stat; anything not a folder goes to mkdirSync as before.
    for (const dir of [paths.memoryDir, paths.sessionsDir, paths.workspaceRoot, paths.artifactsDir, paths.inboxDir]) {
      if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) mkdirSync(dir, { recursive: true });
    }
    // Only a persona with no memory at all gets the header: long-term.md is not read every cycle.
    if (empty) memory.appendLongTerm(LONG_TERM_HEADER);
  } catch (error) {
    throw kernelError('RTC_ERR_STATE_DIR', `cannot create the brain of persona ${path.basename(paths.dir)} under the state directory (${(error as Error).message})`, { cause: error });
  }
  return created;
}

/** `p` relative to the state directory, with `/` separators: safe to log. */
export function relToState(paths: Pick<PersonaPaths, 'stateDir'>, p: string): string {
  return path.relative(paths.stateDir, p).split(path.sep).join('/');
}

/** `executor.codex` → `codex`: the folder name under brain/providers/. */
export function providerName(pluginId: string): string {
  return pluginId.replace(/^executor\./, '').replace(/[^a-z0-9_-]/gi, '-');
}

/**
 * An executor's provider home, `<state>/<persona>/brain/providers/<executor>/`: HOME of its
 * sessions (features/science-loop/executors/provider-home.ts creates and checks it).
 */
export function providerHomeDir(personaDir: string, pluginId: string): string {
  return path.join(personaDir, 'brain', 'providers', providerName(pluginId));
}
