/**
 * `runtimectl persistence export|status`: copying a persona's state from one persistence
 * backend into another (then switching is one line of its persistence.yaml, or --switch),
 * and seeing which backend holds what.
 */
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { copyPersistence, type CopyParts, type CopyReport } from './copy.ts';
import { KNOWN_BACKENDS, parseBackendName, readPersistenceConfig, writePersistenceConfig } from './state/persistence-config.ts';
import { openBackend } from './open.ts';
import type { PersonaBackend as PersistenceBackend } from './backend.ts';
import { parseFlags, printJson, type CliIo, type Command } from '../command/command.ts';
import { listPersonaIds } from './state-dir.ts';
import { lockPersonaWriter, type WriterLock } from './state/writer-lock.ts';
import { existingPersonaDir, existingStateDir, type StateDirChoice } from './state/state-dir.ts';


function usageError(message: string, command: string): never {
  throw kernelError('RTC_ERR_CLI_USAGE', `${message}; see "runtimectl persistence ${command} --help"`);
}

function stateDirOf(values: { 'state-dir'?: string }, io: CliIo): StateDirChoice {
  return existingStateDir(values['state-dir'], io.env, io.cwd);
}

function personaDirOf(choice: StateDirChoice, persona: string | undefined, command: string): string {
  if (persona === undefined) usageError('--persona ID is required', command);
  return existingPersonaDir(choice, persona, `persistence ${command}`);
}


function backendName(value: string, flag: string, command: string): string {
  try {
    return parseBackendName(value);
  } catch {
    return usageError(`${flag} ${value}: a backend name (${KNOWN_BACKENDS.join(', ')})`, command);
  }
}

// ---- persistence (no subcommand)

const PERSISTENCE_USAGE = `Usage: runtimectl persistence <command> [options]

Where a persona's durable state lives: events, ledger, brain memory, proposal records.
Each persona's <state>/<persona>/persistence.yaml names its backend (default jsonl-fs).

Commands:
  export   copy one backend's contents into another (empty) backend, verified after copying
  status   which backend each persona uses and what each backend holds

Every command takes --help.
`;

const persistenceCommand: Command = {
  path: ['persistence'],
  summary: 'persistence backends: export one into another, status',
  usage: PERSISTENCE_USAGE,
  async run(argv, io) {
    if (argv[0] === undefined) {
      io.stdout(PERSISTENCE_USAGE);
      return 2;
    }
    throw kernelError('RTC_ERR_CLI_USAGE', `unknown persistence command "${argv[0]}"; one of export, status`);
  },
};

// ---- persistence export

const EXPORT_USAGE = `Usage: runtimectl persistence export --persona ID --to BACKEND [--from BACKEND]
                                  [--state-dir DIR] [--dsn DSN] [--switch] [--json]

Copies the persona's events (same seq, hashes and times; the copy's chain is verified and
compared event by event), brain memory (brain.json, long-term.md), proposal records and
ledger from one backend into the other. The target must be empty; nothing is merged or
overwritten. The ledger has one home (orchestra/orchestra.db): it is rebuilt in the target's
format, checked, and swapped in, with the old file kept beside it as orchestra.db.<old>
(to or from postgres, whose ledger is rows, it is copied and read back instead).
A persona that is running is refused (its writer lock is held): stop it first.

Options:
  --persona ID       the persona (required)
  --to BACKEND       jsonl-fs, sqlite or postgres (required)
  --dsn DSN          the Postgres database (default: RUNTIMECTL_POSTGRES_DSN)
  --from BACKEND     default: the backend the persona's persistence.yaml names (else jsonl-fs)
  --state-dir DIR    default: $SCIDEX_AGENT_STATE_DIR, else ./state
  --switch           after a verified copy, set persistence.yaml to the target backend
  --json             print one JSON document (the copy report)

Switching without --switch is one line: "backend: <name>" in <state>/<persona>/persistence.yaml.
`;

const persistenceExportCommand = (parts: CopyParts): Command => ({
  path: ['persistence', 'export'],
  summary: "copy a persona's state from one persistence backend into another",
  usage: EXPORT_USAGE,
  async run(argv, io) {
    const { values } = parseFlags(
      argv,
      { persona: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, 'state-dir': { type: 'string' }, dsn: { type: 'string' }, switch: { type: 'boolean' }, json: { type: 'boolean' } },
      'persistence export',
      false,
    );
    const personaDir = personaDirOf(stateDirOf(values, io), values.persona, 'export');
    if (values.to === undefined) usageError('--to BACKEND is required', 'export');
    const to = backendName(values.to, '--to', 'export');
    const from = values.from === undefined ? readPersistenceConfig(personaDir).backend : backendName(values.from, '--from', 'export');
    if (from === to) usageError(`--from and --to are both ${to}`, 'export');

    let source: PersistenceBackend | undefined;
    let target: PersistenceBackend | undefined;
    let lock: WriterLock | undefined;
    let report: CopyReport;
    try {
      const dsn = values.dsn ?? io.env['RUNTIMECTL_POSTGRES_DSN'];
      const shared = dsn === undefined ? {} : { dsn };
      source = await openBackend(personaDir, from, { readonly: true, ...shared });
      // A running kernel would keep appending to the source while it is copied (and after a
      // switch, to the backend nobody reads): the export holds the persona's writer lock.
      lock = await lockPersonaWriter(source, 'persistence export');
      target = await openBackend(personaDir, to, shared);
      report = await copyPersistence(source, target, parts);
      if (values.switch) writePersistenceConfig(personaDir, to);
    } finally {
      await target?.close();
      await source?.close();
      lock?.release();
    }
    const switched = values.switch === true;
    if (values.json) {
      printJson(io, { ok: true, ...report, switched });
      return 0;
    }
    io.stdout(`exported persona ${report.persona} from ${report.from} to ${report.to}\n`);
    io.stdout(`  events     ${report.events.copied} copied and verified, last seq ${report.events.lastSeq}, hash ${report.events.lastHash.slice(0, 12)}…\n`);
    io.stdout(`  memory     brain.json ${report.memory.brain ? 'copied' : 'none'}, long-term.md ${report.memory.longTermBytes} bytes\n`);
    io.stdout(`  proposals  ${report.proposals.copied} record(s)\n`);
    for (const part of parts.parts) io.stdout(`  ${part.describe(report[part.name])}\n`);
    io.stdout(switched ? `persistence.yaml now names ${to}\n` : `to switch: set "backend: ${to}" in ${path.relative(io.cwd, path.join(personaDir, 'persistence.yaml')) || 'persistence.yaml'} (or rerun with --switch on an empty target)\n`);
    return 0;
  },
});

// ---- persistence status

const STATUS_USAGE = `Usage: runtimectl persistence status [--persona ID] [--state-dir DIR] [--dsn DSN] [--json]

For each persona (or the one named): the configured backend, and what each backend holds
(events and last seq, memory, proposal records). Read-only.
`;

interface BackendHolding {
  backend: string;
  events: number;
  lastSeq: number;
  ok: boolean;
  memory: boolean;
  proposals: number;
  error?: string;
}

async function holdings(personaDir: string, name: string, dsn: string | undefined): Promise<BackendHolding> {
  let backend: PersistenceBackend | undefined;
  try {
    backend = await openBackend(personaDir, name, { readonly: true, ...(dsn === undefined ? {} : { dsn }) });
    const report = backend.events.verify();
    return { backend: name, events: report.events, lastSeq: report.lastSeq, ok: report.ok, memory: !backend.memory.isEmpty(), proposals: backend.proposals.lines().length };
  } catch (error) {
    return { backend: name, events: 0, lastSeq: 0, ok: false, memory: false, proposals: 0, error: error instanceof Error ? error.message : String(error) };
  } finally {
    await backend?.close();
  }
}

const persistenceStatusCommand: Command = {
  path: ['persistence', 'status'],
  summary: 'which persistence backend each persona uses and what each holds',
  usage: STATUS_USAGE,
  async run(argv, io) {
    const { values } = parseFlags(argv, { persona: { type: 'string' }, 'state-dir': { type: 'string' }, dsn: { type: 'string' }, json: { type: 'boolean' } }, 'persistence status', false);
    const choice = stateDirOf(values, io);
    const { stateDir } = choice;
    const ids = values.persona === undefined ? listPersonaIds(stateDir) : [path.basename(personaDirOf(choice, values.persona, 'status'))];
    const personas = [];
    for (const id of ids) {
      const dir = path.join(stateDir, id);
      let configured: string;
      let source: string;
      try {
        const config = readPersistenceConfig(dir);
        configured = config.backend;
        source = config.source;
      } catch (error) {
        configured = '?';
        source = error instanceof Error ? error.message : String(error);
      }
      const backends: BackendHolding[] = [];
      // A shared database is looked at only when one is named (--dsn, RUNTIMECTL_POSTGRES_DSN) or the persona uses it.
      const dsn = values.dsn ?? io.env['RUNTIMECTL_POSTGRES_DSN'];
      for (const name of KNOWN_BACKENDS) {
        if (name === 'postgres' && dsn === undefined && configured !== 'postgres') continue;
        backends.push(await holdings(dir, name, dsn));
      }
      personas.push({ id, configured, config: source, backends });
    }
    if (values.json) printJson(io, { stateDir, personas });
    else {
      for (const p of personas) {
        io.stdout(`${p.id}  backend ${p.configured} (${p.config === 'file' ? 'persistence.yaml' : p.config === 'default' ? 'default' : p.config})\n`);
        for (const b of p.backends) {
          const mark = b.backend === p.configured ? '*' : ' ';
          io.stdout(b.error ? `  ${mark} ${b.backend.padEnd(9)} error: ${b.error}\n` : `  ${mark} ${b.backend.padEnd(9)} ${b.events} event(s), last seq ${b.lastSeq}${b.ok ? '' : ' (DAMAGED)'}, memory ${b.memory ? 'yes' : 'no'}, ${b.proposals} proposal record(s)\n`);
        }
      }
      if (personas.length === 0) io.stdout('no personas\n');
    }
    return 0;
  },
};

/**
 * The `persistence` commands. `parts` is what a copy needs from the features above
 * persistence (the history's rollups, the ledger): the composition root hands them in.
 */
export function persistenceCommands(parts: CopyParts): readonly Command[] {
  return [persistenceCommand, persistenceExportCommand(parts), persistenceStatusCommand];
}
