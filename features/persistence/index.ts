/**
 * Persistence backends: one interface (backend.ts) over a persona's events, brain memory and
 * proposal records, and the rows of what features keep beside them (the ledger: parts.ts); implementations are `persistence` plugins (isolates) in
 * plugins/persistence-*; README.md in this folder has the decisions.
 */
export type { PersistenceBackend, EventStore, MemoryStore, ProposalStore, EventChainReport, StoreProblem, PersistenceProvider } from '../../kernel/contracts/persistence.ts';
export type { PersonaBackend } from './backend.ts';
export type { BackendPart } from './parts.ts';
export { openBackend, findPersistencePlugin, STORAGE_BINDINGS, type OpenBackendOptions } from './open.ts';
export {
  readPersistenceConfig,
  writePersistenceConfig,
  parseBackendName,
  pluginIdOf,
  persistenceConfigSchema,
  PERSISTENCE_CONFIG_FILE,
  PERSISTENCE_SCHEMA_VERSION,
  DEFAULT_BACKEND_NAME,
  KNOWN_BACKENDS,
} from './state/persistence-config.ts';
export { copyPersistence, type CopyParts, type CopyReport } from './copy.ts';
export { eventLine, encodeEvent, checkEventRows } from './storage/rows.ts';
