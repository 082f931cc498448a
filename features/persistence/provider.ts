/**
 * The persistence feature as the kernel's loop driver sees it (kernel/contracts/persistence.ts
 * PersistenceProvider): open a persona's state in a backend, and read or write which backend
 * its state directory records (`<state>/<persona>/persistence.yaml`).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { PersistenceProvider } from '../../kernel/contracts/persistence.ts';
import { DEFAULT_BACKEND_NAME, PERSISTENCE_CONFIG_FILE, readPersistenceConfig, writePersistenceConfig } from './state/persistence-config.ts';
import { openBackend } from './open.ts';
import { prepareParts, type BackendPart } from './parts.ts';

export const persistenceProvider: PersistenceProvider = {
  defaultName: DEFAULT_BACKEND_NAME,
  open: (personaDir, name, options = {}) => openBackend(personaDir, name, options),
  configured: (personaDir) => readPersistenceConfig(personaDir).backend,
  recorded: (personaDir) => (existsSync(path.join(personaDir, PERSISTENCE_CONFIG_FILE)) ? readPersistenceConfig(personaDir).backend : undefined),
  record: (personaDir, name) => writePersistenceConfig(personaDir, name),
};

/**
 * The provider for a composition whose steps use parts features keep in the backend (the
 * science loop: the ledger): every open first prepares them, so their synchronous use in a
 * cycle finds them ready.
 */
export function providerWith(parts: readonly BackendPart[]): PersistenceProvider {
  return {
    ...persistenceProvider,
    open: async (personaDir, name, options = {}) => {
      await prepareParts(parts);
      return openBackend(personaDir, name, options);
    },
  };
}
