/**
 * The `jsonl-fs` persistence backend (the embedded default): the persona's state as plain
 * files in its directory, the layout every other part of the kernel already reads.
 *
 *   logs/events.jsonl               kernel/events' hash-chained log, group-committed (O_DSYNC)
 *   brain/memory/brain.json         rewritten whole: temp file, fsync, rename
 *   brain/memory/long-term.md       appended and fsynced
 *   review/proposals.jsonl          one JSON record a line, appended and fsynced
 *   orchestra/orchestra.db          the ledger, in the jsonl-fs ledger format (features/ledger)
 *
 * HOST MODULE: unlike other plugins this entry runs in the kernel's process, not in an
 * isolate (see kernel/contracts/persistence.ts). It gets only the `storage.files` handle its
 * manifest declares, and reaches every file through it.
 */
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { openEventLog, type EventLog, type OpenSegment } from '../../kernel/events/event-log.ts';
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { readEvents } from '../../kernel/events/verify.ts';
import { EVENT_LOG_RELATIVE } from '../../kernel/events/paths.ts';
import type { EventOpenOptions, EventStore, MemoryStore, ProposalStore } from '../../kernel/contracts/persistence.ts';
import type { BackendContext, PersonaBackend as PersistenceBackend } from '../../features/persistence/backend.ts';
import { fileHistoryStorage } from '../../kernel/history/file-storage.ts';
import { eventsAfter } from '../../kernel/history/reader.ts';
import { openSegmentOf } from '../../kernel/history/open-segment.ts';
import { verifyHistory } from '../../kernel/history/verify.ts';
import { checkOpenFile } from '../../kernel/history/open-file-check.ts';
import { importSegmented } from '../../kernel/history/import.ts';
import { eventLineOf } from '../../kernel/history/lines.ts';
import { checkBrainText, checkProposalLine, parseProposalLines } from '../../features/persistence/records.ts';
import { requireStorage } from '../../features/persistence/open.ts';
import type { PersonaFiles } from '../../kernel/storage/persona-storage.ts';
import { READ_CAPS } from '../../kernel/storage/safe-read.ts';

export const BRAIN_FILE = 'brain/memory/brain.json';
export const LONG_TERM_FILE = 'brain/memory/long-term.md';
export const PROPOSALS_FILE = 'review/proposals.jsonl';

function readonlyError(what: string) {
  return kernelError('RTC_ERR_PERSISTENCE_READONLY', `cannot ${what}: the persistence backend was opened read-only`);
}

function eventStore(files: PersonaFiles, context: BackendContext, state: { log?: EventLog; opening?: Promise<EventLog> }): EventStore {
  const file = files.resolve(EVENT_LOG_RELATIVE);
  const history = fileHistoryStorage({ dir: path.dirname(file), label: `${context.personaId}/logs`, readonly: context.readonly });
  let openOptions: EventOpenOptions = {};
  const open = (): Promise<EventLog> => {
    if (context.readonly) return Promise.reject(readonlyError('append events'));
    state.opening ??= openEventLog(file, {
      now: context.now,
      history,
      ...(openOptions.rollup ? { rollup: openOptions.rollup } : {}),
      ...(openOptions.onEvent ? { onEvent: openOptions.onEvent } : {}),
    }).then((log) => (state.log = log));
    return state.opening;
  };
  const store: EventStore = {
    location: file,
    history,
    open: async (options = {}) => {
      openOptions = options;
      return (await open()).startup;
    },
    // Straight to the open log (no extra turn): appends made together stay in call order and one batch.
    append: (type, payload) => (state.log ? state.log.append(type, payload) : open().then((log) => log.append(type, payload))),
    flush: async () => {
      if (state.opening) await (await state.opening).flush();
    },
    seal: async (options) => (await open()).seal(options),
    openSegment: (): OpenSegment => state.log?.openSegment ?? openSegmentOf(store.readOpen(), files.size(EVENT_LOG_RELATIVE)),
    readOpen: () => readEvents(file),
    readAfter: (afterSeq) => eventsAfter(store, afterSeq),
    read: () => eventsAfter(store, 0),
    verify: (options) => verifyHistory({ history, location: file, checkOpen: (start) => checkOpenFile(file, start) }, options),
    isEmpty: () => files.size(EVENT_LOG_RELATIVE) === 0 && history.list().segments.length === 0,
    async importEvents(events: Iterable<EventEnvelope>, importOptions = {}) {
      if (context.readonly) throw readonlyError('import events');
      if (state.opening) throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', `${file}: events can only be imported into a log that is not open for appends`);
      if (!store.isEmpty()) {
        throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', `${EVENT_LOG_RELATIVE} already holds events; an import goes only into an empty log`, { details: { file: EVENT_LOG_RELATIVE } });
      }
      // Written in batches so a long log never sits whole in memory; each batch is synced. A
      // segment header seals what came before it, as in the original.
      return importSegmented(events, {
        history,
        appendEvents: (list) => files.appendDurably(EVENT_LOG_RELATIVE, list.map(eventLineOf).join('')),
        readOpenBytes: () => Buffer.from(files.readText(EVENT_LOG_RELATIVE) ?? '', 'utf8'),
        replaceOpen: (header) => files.replaceDurably(EVENT_LOG_RELATIVE, eventLineOf(header)),
        file,
        ...(importOptions.rollup ? { rollup: importOptions.rollup } : {}),
      });
    },
  };
  return store;
}

/**
 * brain.json is rewritten every cycle: the previous complete brain after a power loss is
 * acceptable (cycle numbers come from the event log); kill -9 always finds the new one.
 */
const BRAIN_REPLACE = { directorySync: 'when-new' } as const;

/** The memory store; writeBrainAsync is the same replace in Node's thread pool, for the loop. */
function memoryStore(files: PersonaFiles): Required<MemoryStore> {
  return {
    readBrain: () => files.readText(BRAIN_FILE, READ_CAPS.brain),
    writeBrain(text) {
      checkBrainText(text);
      files.replaceDurably(BRAIN_FILE, text, BRAIN_REPLACE);
    },
    async writeBrainAsync(text) {
      checkBrainText(text);
      await files.replaceDurablyAsync(BRAIN_FILE, text, BRAIN_REPLACE);
    },
    readLongTerm: () => files.readText(LONG_TERM_FILE) ?? '',
    appendLongTerm(text) {
      if (text === '') return;
      files.appendDurably(LONG_TERM_FILE, text);
    },
    isEmpty: () => !files.exists(BRAIN_FILE) && files.size(LONG_TERM_FILE) === 0,
  };
}

function proposalStore(files: PersonaFiles): ProposalStore {
  const location = files.resolve(PROPOSALS_FILE);
  const lines = (): string[] => {
    const text = files.readText(PROPOSALS_FILE) ?? '';
    const parts = text.split('\n');
    // The text after the last newline is a torn write (never acknowledged), or '' when there is none.
    parts.pop();
    return parts;
  };
  return {
    location,
    append(input) {
      const list = typeof input === 'string' ? [input] : [...input];
      if (list.length === 0) return;
      list.forEach((line, i) => checkProposalLine(line, i));
      files.appendDurably(PROPOSALS_FILE, `${list.join('\n')}\n`);
    },
    lines,
    read: () => parseProposalLines(lines(), location),
    isEmpty: () => files.size(PROPOSALS_FILE) === 0,
  };
}

export function createBackend(context: BackendContext): PersistenceBackend {
  const files = requireStorage(context, 'files');
  const state: { log?: EventLog; opening?: Promise<EventLog> } = {};
  return {
    name: 'jsonl-fs',
    pluginId: context.pluginId,
    personaId: context.personaId,
    personaDir: context.personaDir,
    readonly: context.readonly,
    events: eventStore(files, context, state),
    ledger: files.ledger,
    memory: memoryStore(files),
    proposals: proposalStore(files),
    async close() {
      if (state.opening) {
        const log = await state.opening.catch(() => undefined);
        await log?.close();
      }
    },
  };
}
