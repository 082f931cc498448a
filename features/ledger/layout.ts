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
import { DEFAULT_BACKEND, openRepo } from './backends.ts';
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
import { assertFormat, detectLedgerFormat } from './format.ts';
import { resolveInsidePersona } from './paths.ts';
import type { LedgerBackend } from './repo.ts';

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

export function bootstrapLedger(personaDir: string, options: BootstrapOptions = {}): BootstrapResult {
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
  const { config, dbFile } = location;
  mkdirSync(path.dirname(dbFile), { recursive: true });
  const found = detectLedgerFormat(dbFile);
  if (found === 'sqlite' || found === 'jsonl-fs') {
    if (options.backend !== undefined) assertFormat(dbFile, config.db_path, options.backend);
    return { status: 'existing', dbPath: config.db_path, backend: found, personaId };
  }
  const backend = options.backend ?? DEFAULT_BACKEND;
  // Opening for writing creates the database with its schema version stamped in.
  openRepo(backend, dbFile, { displayName: config.db_path }).close();
  return { status: 'created', dbPath: config.db_path, backend, personaId };
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
