/**
 * A PersistenceBackend over an isolated backend plugin (plugins/persistence-*): the plugin
 * runs in an isolated-vm isolate under the `persistence` sandbox profile (no Deno
 * permission at all) and reaches storage only through the storage bindings its manifest
 * declares, each call checked against the persona's StorageSession (features/persistence/storage).
 *
 * One isolate per backend plugin serves every persona of this process that chose it
 * (a thousand personas cannot each keep one more isolate); each persona is a session whose
 * token the plugin passes back with every binding call. Events go through the kernel's
 * chain (features/persistence/storage/isolated-events.ts); memory and proposal records are checked
 * here before the plugin stores them, and handed back as the plugin read them.
 */
import path from 'node:path';
import { ERROR_CODES, isKernelError, kernelError, type ErrorCode } from '../../kernel/errors.ts';
import type { MemoryStore, ProposalStore } from '../../kernel/contracts/persistence.ts';
import type { PersonaBackend } from './backend.ts';
import { IsolatedEventStore, type BackendCalls } from './storage/isolated-events.ts';
import type { StorageSession } from './storage/storage-session.ts';
import type { TraceStorage } from '../trace-store/trace-store.ts';
import { sha256Digest, type ContentStore } from '../trace-store/content-store.ts';
import { requireSharedPlugin, sharedStoragePlugin, type SharedStoragePlugin } from './shared-instance.ts';
import type { LoadedPlugin } from '../../kernel/plugins/registry.ts';
import { checkBrainText, checkProposalLine, parseProposalLines } from './records.ts';
import { sessionLease } from './storage/postgres/pg-bindings.ts';
import { selfHolder, type WriterLock } from './state/writer-lock.ts';

/** What every persistence plugin exports (the first argument of each is the session token). */
export { BACKEND_EXPORTS } from '../../kernel/contracts/persistence.ts';
import { BACKEND_EXPORTS } from '../../kernel/contracts/persistence.ts';

/** What `describe` answers: the backend's name and where it keeps things, relative to the persona folder. */
interface Description {
  name: string;
  /** the file (or database) holding the events: `logs/events.jsonl`, `persistence.db` */
  events: string;
  /** where proposal records are: a file (`review/proposals.jsonl`) or `<db>#proposals` */
  proposals: string;
  /** the format this backend keeps the persona's task ledger in (features/ledger/access.ts reads it) */
  ledger: string;
  /** true when the backend keeps the replay trace (its exports TRACE_EXPORTS); else it is files in the persona folder */
  trace?: boolean;
}

/** What a backend that keeps the replay trace exports besides BACKEND_EXPORTS. */
export const TRACE_EXPORTS = ['traceAppend', 'traceLines', 'blobPut', 'blobGet'] as const;

/**
 * A plugin's failure as the kernel error it names: a binding's refusal passed on (or a
 * plugin's own coded error, `code` set) keeps its code and message; anything else is the
 * plugin's failure, named as such. The code crosses the isolate boundary as data (the shim
 * reports a thrown error's `code` beside its message), never parsed out of the text.
 */
export function unwrapPluginError(error: unknown, pluginId: string): unknown {
  if (!isKernelError(error) || error.code !== 'RTC_ERR_SANDBOX_SCRIPT') return error;
  const inner = typeof error.details.message === 'string' ? error.details.message : error.message;
  const code = error.details.code;
  if (typeof code === 'string' && code in ERROR_CODES && !code.startsWith('RTC_ERR_SANDBOX')) return kernelError(code as ErrorCode, inner.split('\n')[0]!, { details: { plugin: pluginId } });
  return kernelError('RTC_ERR_PERSISTENCE_PLUGIN', `plugin ${pluginId} failed: ${error.message.split('\n')[0]}`, { details: { plugin: pluginId }, cause: error });
}

export function callsFor(s: SharedStoragePlugin, session: StorageSession, pluginId: string): BackendCalls {
  return {
    pluginId,
    sync(name, ...args) {
      try {
        return s.instance.callSync(name, session.token, ...args);
      } catch (error) {
        throw unwrapPluginError(error, pluginId);
      }
    },
    async async(name, ...args) {
      try {
        return await s.instance.call(name, session.token, ...args);
      } catch (error) {
        throw unwrapPluginError(error, pluginId);
      }
    },
  };
}

function text(value: unknown, what: string, pluginId: string): string {
  if (typeof value !== 'string') throw kernelError('RTC_ERR_PERSISTENCE_BACKEND', `plugin ${pluginId}: ${what} answered ${typeof value}, not text`);
  return value;
}

export interface IsolatedBackendContext {
  personaId: string;
  personaDir: string;
  readonly: boolean;
  now: () => Date;
  /** sets up the session before the plugin sees it (a shared database's connection: open.ts) */
  prepareSession?: (session: StorageSession) => void;
  /** where a store that is not in the persona folder says things are, for messages (events, proposals) */
  locations?: { events: string; proposals: string };
}

/** Builds the backend plugin's isolate (once per process); after it, openIsolatedBackendSync works. */
export async function prepareBackendPlugin(plugin: LoadedPlugin): Promise<void> {
  await sharedStoragePlugin(plugin);
}

export async function openIsolatedBackend(plugin: LoadedPlugin, context: IsolatedBackendContext): Promise<PersonaBackend> {
  await sharedStoragePlugin(plugin);
  return openIsolatedBackendSync(plugin, context);
}

/** openIsolatedBackend once the plugin is prepared (prepareBackendPlugin): no await needed. */
export function openIsolatedBackendSync(plugin: LoadedPlugin, context: IsolatedBackendContext): PersonaBackend {
  const pluginId = plugin.manifest.id;
  const s = requireSharedPlugin(plugin, `opening the ${plugin.manifest.id} backend`);
  const session = s.host.open(context.personaId, context.personaDir, context.readonly);
  const calls = callsFor(s, session, pluginId);
  let description: Description;
  try {
    context.prepareSession?.(session);
    calls.sync('open', { persona_id: context.personaId, readonly: context.readonly });
    description = calls.sync('describe') as Description;
  } catch (error) {
    void s.host.close(session).catch(() => undefined);
    throw error;
  }
  const resolveLocation = (relative: string, kind: 'events' | 'proposals'): string => {
    if (context.locations) return context.locations[kind];
    const [file, fragment] = relative.split('#');
    const absolute = session.resolve(file!);
    return fragment === undefined ? absolute : `${absolute}#${fragment}`;
  };
  const events = new IsolatedEventStore(session, calls, resolveLocation(description.events, 'events'), context.now);

  const memory: Required<MemoryStore> = {
    readBrain: () => {
      const value = calls.sync('readBrain');
      return value === null ? undefined : text(value, 'readBrain', pluginId);
    },
    writeBrain(value) {
      checkBrainText(value);
      calls.sync('writeBrain', value);
    },
    async writeBrainAsync(value) {
      checkBrainText(value);
      await calls.async('writeBrainAsync', value);
    },
    readLongTerm: () => text(calls.sync('readLongTerm'), 'readLongTerm', pluginId),
    appendLongTerm(value) {
      if (value === '') return;
      calls.sync('appendLongTerm', value);
    },
    isEmpty: () => calls.sync('memoryIsEmpty') === true,
  };

  const proposalLocation = resolveLocation(description.proposals, 'proposals');
  const lines = (): string[] => {
    const value = calls.sync('proposalLines');
    if (!Array.isArray(value) || value.some((l) => typeof l !== 'string')) throw kernelError('RTC_ERR_PERSISTENCE_BACKEND', `plugin ${pluginId}: proposalLines answered something other than a list of lines`);
    return value as string[];
  };
  const proposals: ProposalStore = {
    location: proposalLocation,
    append(input) {
      const list = typeof input === 'string' ? [input] : [...input];
      if (list.length === 0) return;
      list.forEach((line, i) => checkProposalLine(line, i));
      calls.sync('appendProposals', list);
    },
    lines,
    read: () => parseProposalLines(lines(), proposalLocation),
    isEmpty: () => calls.sync('proposalsIsEmpty') === true,
  };

  const trace = description.trace === true ? traceStorage(calls, plugin, context.locations?.events ?? resolveLocation(description.events, 'events')) : undefined;

  let closed = false;
  const backend: PersonaBackend = {
    name: description.name,
    pluginId,
    personaId: context.personaId,
    personaDir: context.personaDir,
    readonly: context.readonly,
    events,
    memory,
    proposals,
    ledgerFormat: typeof description.ledger === 'string' ? description.ledger : String(description.ledger),
    ...(trace ? { trace } : {}),
    callPlugin: (name, ...args) => calls.async(name, ...args),
    callPluginSync: (name, ...args) => calls.sync(name, ...args),
    releaseFile: (relative) => session.releaseFile(relative),
    // A shared store brings its own one-writer lock (the Postgres lease); file stores leave it to the persona folder.
    ...(session.postgres
      ? {
          // The lease is the session's: the events' open finds it held and appends under it.
          acquireWriterLock: async (purpose: string): Promise<WriterLock> => {
            const lease = sessionLease(session, purpose);
            return { holder: selfHolder(purpose), release: () => void lease.release() };
          },
        }
      : {}),
    async close() {
      if (closed) return;
      closed = true;
      try {
        await events.close();
        calls.sync('close');
      } finally {
        await s.host.close(session);
      }
    },
  };
  return backend;
}

/** The folder a location names, relative to the persona folder (for messages). */
export function relativeLocation(personaDir: string, location: string): string {
  return path.relative(personaDir, location);
}

/** The trace's lines and content-addressed blobs through the plugin (blobs cross as base64 and are checked by digest here). */
function traceStorage(calls: BackendCalls, plugin: LoadedPlugin, where: string): TraceStorage {
  const missing = TRACE_EXPORTS.filter((e) => !plugin.manifest.exports.includes(e));
  if (missing.length > 0) throw kernelError('RTC_ERR_PERSISTENCE_PLUGIN', `plugin ${plugin.manifest.id} keeps the trace but does not export ${missing.join(', ')}`, { details: { plugin: plugin.manifest.id } });
  const location = where.replace(/#events\(/, '#trace(');
  const recording = (message: string, details: Record<string, unknown> = {}) => kernelError('RTC_ERR_REPLAY_RECORDING', `${location}: ${message}`, { details });
  const blobs: ContentStore = {
    dir: `${location}#blobs`,
    put(bytes) {
      const digest = sha256Digest(bytes);
      const data = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
      calls.sync('blobPut', { digest, base64: data.toString('base64') });
      return { digest, relative: `blobs/${digest.slice('sha256:'.length)}` };
    },
    get(digest) {
      if (!/^sha256:[0-9a-f]{64}$/.test(digest)) throw recording(`"${digest}" is not a sha256 digest`, { digest });
      const answer = calls.sync('blobGet', digest);
      if (typeof answer !== 'string') throw recording(`a recorded blob ${digest} is missing`, { digest });
      const bytes = Buffer.from(answer, 'base64');
      const actual = sha256Digest(bytes);
      if (actual !== digest) throw recording(`a recorded blob has digest ${actual}, not ${digest}; it was changed after it was stored`, { digest, actual });
      return bytes;
    },
    has: (digest) => typeof calls.sync('blobGet', digest) === 'string',
  };
  return {
    location,
    appendLine: (line) => void calls.sync('traceAppend', line),
    lines() {
      const answer = calls.sync('traceLines');
      if (!Array.isArray(answer) || answer.some((l) => typeof l !== 'string')) throw recording('traceLines answered something other than a list of lines');
      return answer as string[];
    },
    blobs,
  };
}
