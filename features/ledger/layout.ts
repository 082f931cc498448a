/**
 * The persona's local ledger on disk (the spec's container-local Orchestra):
 *
 *   <persona>/orchestra/orchestra.db
 *   <persona>/orchestra/project/.orchestra/config.yaml
 *   <persona>/orchestra/project/.orchestra/prompt.md
 *   <persona>/orchestra/worktrees/
 *   <persona>/orchestra/logs/
 *
 * Bootstrapping is idempotent: it creates what is missing, never rewrites what is there,
 * and says whether the database was created now or found. Every path goes through
 * resolveInsidePersona first, so a planted symbolic link cannot aim any of it elsewhere.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import {
  CONFIG_PATH,
  DEFAULT_PROMPT,
  LAYOUT_DIRS,
  PROMPT_PATH,
  assertPersonaId,
  defaultConfig,
  readLedgerConfig,
  type LedgerConfig,
} from './config.ts';
import { openLedger } from './open.ts';
import { resolveInsidePersona } from './paths.ts';
import type { LedgerBackend } from '../../plugins/ledger/model/repo.ts';

export interface BootstrapOptions {
  /** Backend for a ledger created now; an existing ledger keeps the backend that wrote it. */
  backend?: LedgerBackend;
  /** Defaults to the persona directory's name. */
  personaId?: string;
  /** Project name written into a new config.yaml. */
  project?: string;
}

export interface BootstrapResult {
  /** `created` when this call created the database, `existing` when it was already there. */
  status: 'created' | 'existing';
  /** The database path relative to the persona directory (safe to log: no host path). */
  dbPath: string;
  backend: LedgerBackend;
  personaId: string;
}

export interface LedgerLocation {
  config: LedgerConfig;
  /** Absolute real path of the database. */
  dbFile: string;
  personaId: string;
}

export function personaIdOf(personaDir: string, personaId?: string): string {
  const id = personaId ?? path.basename(path.resolve(personaDir));
  assertPersonaId(id);
  return id;
}

/** Writes a file only if it does not exist yet (never overwrites an operator's edit). */
function writeIfMissing(file: string, text: string): void {
  try {
    writeFileSync(file, text, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

function configText(config: LedgerConfig): string {
  return `# The persona's local task ledger. db_path is relative to the persona directory.\n${stringify(config)}`;
}

/** Where the ledger of a bootstrapped persona is; undefined when there is no config yet. */
export function locateLedger(personaDir: string, personaId?: string): LedgerLocation | undefined {
  const id = personaIdOf(personaDir, personaId);
  const config = readLedgerConfig(personaDir, resolveInsidePersona(personaDir, CONFIG_PATH), id);
  if (config === undefined) return undefined;
  return { config, dbFile: resolveInsidePersona(personaDir, config.db_path), personaId: id };
}

/**
 * The ledger's folders, config.yaml and prompt.md, created where missing (never rewritten);
 * returns where its database is. The database itself is created by the first writer's open
 * (openLedger), in the persona's backend.
 */
export function ensureLedgerLayout(personaDir: string, options: BootstrapOptions = {}): LedgerLocation {
  const personaId = personaIdOf(personaDir, options.personaId);
  mkdirSync(personaDir, { recursive: true });
  for (const dir of LAYOUT_DIRS) mkdirSync(resolveInsidePersona(personaDir, dir), { recursive: true });

  const configFile = resolveInsidePersona(personaDir, CONFIG_PATH);
  if (readLedgerConfig(personaDir, configFile, personaId) === undefined) {
    writeIfMissing(configFile, configText(defaultConfig(personaId, options.project)));
  }
  writeIfMissing(resolveInsidePersona(personaDir, PROMPT_PATH), DEFAULT_PROMPT);

  const location = locateLedger(personaDir, personaId);
  if (location === undefined) throw new Error(`${CONFIG_PATH} vanished during bootstrap`);
  mkdirSync(path.dirname(location.dbFile), { recursive: true });
  return location;
}

/**
 * Creates what is missing of the persona's ledger (folders, config.yaml, the database in its
 * backend) and says whether the database was created now. Needs prepareLedger() once per process.
 */
export function bootstrapLedger(personaDir: string, options: BootstrapOptions = {}): BootstrapResult {
  mkdirSync(personaDir, { recursive: true });
  const opened = openLedger(personaDir, { ...(options.backend === undefined ? {} : { backend: options.backend }), ...(options.personaId === undefined ? {} : { personaId: options.personaId }), ...(options.project === undefined ? {} : { project: options.project }) });
  opened.store.close();
  return opened.bootstrap!;
}

/**
 * The environment an executor sets before invoking Orchestra, so that Orchestra uses the
 * persona's own database and never the host's.
 */
export function ledgerEnv(personaDir: string, personaId?: string): { ORCHESTRA_DB: string; ORCHESTRA_DB_PATH: string } {
  const location = locateLedger(personaDir, personaId);
  const dbFile = location?.dbFile ?? resolveInsidePersona(personaDir, defaultConfig(personaIdOf(personaDir, personaId)).db_path);
  return { ORCHESTRA_DB: dbFile, ORCHESTRA_DB_PATH: dbFile };
}
