/**
 * `runtimectl ledger ...`: reads and changes a persona's local task ledger (the spec's
 * container-local Orchestra) at `<state>/<persona>/orchestra/`.
 *
 *   ledger init | list | add | move | lease | checkpoint | surprise
 *
 * Every command takes --persona ID, --state-dir DIR (default: $SCIDEX_AGENT_STATE_DIR, else
 * ./state), --backend jsonl-fs|sqlite and --json. Changes take --by WHO and --now MS; the
 * command line is the caller that supplies the clock (the ledger never reads one), so --now
 * makes a scripted sequence of commands reproducible.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { parseYaml } from '../../kernel/manifest/load.ts';
import { assertPersonaId } from './config.ts';
import {
  bootstrapLedger,
  openLedger,
  prepareLedger,
  parseBackend,
  parseTaskState,
  type Checkpoint,
  type Lease,
  type LedgerStore,
  type Surprise,
  type Task,
} from './index.ts';
import { chooseStateDir, ensureStateDir, existingPersonaDir, existingStateDir } from '../persistence/state/state-dir.ts';
import { parseFlags, printJson, type CliIo, type Command, type Options } from '../command/command.ts';

const COMMON_OPTIONS = {
  persona: { type: 'string' },
  'state-dir': { type: 'string' },
  backend: { type: 'string' },
  json: { type: 'boolean' },
} as const satisfies Options;

const CHANGE_OPTIONS = {
  ...COMMON_OPTIONS,
  by: { type: 'string' },
  now: { type: 'string' },
} as const satisfies Options;

const COMMON_USAGE = `Common options:
  --persona ID       the persona whose ledger to use (required)
  --state-dir DIR    state directory holding <persona>/ (default: $SCIDEX_AGENT_STATE_DIR, else ./state)
  --backend NAME     jsonl-fs or sqlite; must match an existing ledger (default: what the file is,
                     jsonl-fs for a new one)
  --json             print one JSON document`;

const CHANGE_USAGE = `  --by WHO           who makes the change (default: operator)
  --now MS           the time of the change in epoch milliseconds (default: the current time)`;

interface Common {
  personaId: string;
  personaDir: string;
  backend?: 'jsonl-fs' | 'sqlite';
  json: boolean;
}

function usageError(message: string, command: string): never {
  throw kernelError('RTC_ERR_CLI_USAGE', `${message}; see "runtimectl ledger ${command} --help"`);
}

function common(values: { persona?: string; 'state-dir'?: string; backend?: string; json?: boolean }, io: CliIo, command: string): Common {
  if (values.persona === undefined) usageError('--persona ID is required', command);
  assertPersonaId(values.persona);
  // init starts a ledger (and the persona's folder); every other verb works on a persona that
  // exists, so a typo is refused (with "did you mean") instead of becoming a new persona.
  let personaDir: string;
  if (command === 'init') {
    const choice = chooseStateDir(values['state-dir'], io.env, io.cwd);
    ensureStateDir(choice.given, choice.stateDir);
    personaDir = path.join(choice.stateDir, values.persona);
  } else personaDir = existingPersonaDir(existingStateDir(values['state-dir'], io.env, io.cwd), values.persona, `ledger ${command}`);
  return {
    personaId: values.persona,
    personaDir,
    ...(values.backend === undefined ? {} : { backend: parseBackend(values.backend) }),
    json: values.json ?? false,
  };
}

function actor(values: { by?: string; now?: string }, command: string): { by: string; now: number } {
  let now = Date.now();
  if (values.now !== undefined) {
    if (!/^\d+$/.test(values.now)) usageError(`--now ${values.now}: must be epoch milliseconds`, command);
    now = Number(values.now);
  }
  return { by: values.by ?? 'operator', now };
}

/** `90s`, `15m`, `2h`, `1d`, `500ms`, or a bare number of milliseconds. */
function parseDuration(text: string, command: string): number {
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(text);
  if (!match) usageError(`--ttl ${text}: use a duration such as 500ms, 90s, 15m, 2h or 1d`, command);
  const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  return Number(match[1]) * (units[match[2] ?? 'ms'] ?? 1);
}

function withStore<T>(c: Common, readonly: boolean, fn: (store: LedgerStore, dbPath: string) => T): T {
  const { store, dbPath } = openLedger(c.personaDir, { readonly, personaId: c.personaId, ...(c.backend === undefined ? {} : { backend: c.backend }) });
  try {
    return fn(store, dbPath);
  } finally {
    store.close();
  }
}

function taskLine(task: Task): string {
  const note = task.state === 'blocked' ? ` (from ${task.blockedFrom ?? '?'}${task.blockedBySurprise ? ', by surprise' : ''})` : '';
  return `${task.id}  ${task.state.padEnd(12)}  ${task.title}${note}\n`;
}

// ---- ledger (no subcommand)

const LEDGER_COMMANDS = ['init', 'list', 'add', 'move', 'lease', 'checkpoint', 'surprise'];

const LEDGER_USAGE = `Usage: runtimectl ledger <command> --persona ID [options]

The persona's local task ledger at <state>/<persona>/orchestra/.

Commands:
  init         create the ledger layout (idempotent)
  list         list tasks
  add          add a task (state: proposed)
  move         move a task to another state
  lease        acquire, renew, release, reconcile or list resource leases
  checkpoint   add or show a task's resumption checkpoints
  surprise     record, resolve or list surprises

Every command takes --help.
`;

export const ledgerCommand: Command = {
  path: ['ledger'],
  summary: 'the persona\'s local task ledger: init, list, add, move, lease, checkpoint, surprise',
  usage: LEDGER_USAGE,
  async run(argv, io) {
    if (argv[0] === undefined) {
      io.stdout(LEDGER_USAGE);
      return 2;
    }
    throw kernelError('RTC_ERR_CLI_USAGE', `unknown ledger command "${argv[0]}"; one of ${LEDGER_COMMANDS.join(', ')}`);
  },
};

// ---- ledger init

export const ledgerInitCommand: Command = {
  path: ['ledger', 'init'],
  summary: 'create a persona\'s local ledger layout (idempotent)',
  usage: `Usage: runtimectl ledger init --persona ID [--state-dir DIR] [--backend jsonl-fs|sqlite] [--json]

Creates <state>/<persona>/orchestra/ with orchestra.db, project/.orchestra/config.yaml,
project/.orchestra/prompt.md, worktrees/ and logs/. Reports "created" or "existing".

${COMMON_USAGE}
`,
  async run(argv, io) {
    const { values } = parseFlags(argv, COMMON_OPTIONS, 'ledger init', false);
    const c = common(values, io, 'init');
    const result = bootstrapLedger(c.personaDir, { personaId: c.personaId, ...(c.backend === undefined ? {} : { backend: c.backend }) });
    if (c.json) printJson(io, { persona: c.personaId, ...result });
    else io.stdout(`ledger of ${c.personaId}: ${result.status} (${result.backend}, ${result.dbPath})\n`);
    return 0;
  },
};

// ---- ledger list

export const ledgerListCommand: Command = {
  path: ['ledger', 'list'],
  summary: 'list the tasks in a persona\'s local ledger',
  usage: `Usage: runtimectl ledger list --persona ID [--state STATE] [options]

Lists tasks with their state; --json includes each task's full history.

Options:
  --state STATE      only tasks in this state
${COMMON_USAGE}
`,
  async run(argv, io) {
    const { values } = parseFlags(argv, { ...COMMON_OPTIONS, state: { type: 'string' } }, 'ledger list', false);
    const c = common(values, io, 'list');
    const state = values.state === undefined ? undefined : parseTaskState(values.state);
    return withStore(c, true, (store, dbPath) => {
      const tasks = store.listTasks(state === undefined ? {} : { state });
      if (c.json) printJson(io, { persona: c.personaId, backend: store.backend, dbPath, tasks });
      else {
        for (const task of tasks) io.stdout(taskLine(task));
        io.stdout(`${tasks.length} task(s)\n`);
      }
      return 0;
    });
  },
};

// ---- ledger add

export const ledgerAddCommand: Command = {
  path: ['ledger', 'add'],
  summary: 'add a task to a persona\'s local ledger',
  usage: `Usage: runtimectl ledger add --persona ID --title TEXT [--description TEXT] [options]

Adds a task in state "proposed" and prints its id (T-0001, T-0002, ...).

Options:
  --title TEXT         what the task is (required)
  --description TEXT   the bounded input domain, write set, acceptance workloads ...
${CHANGE_USAGE}
${COMMON_USAGE}
`,
  async run(argv, io) {
    const { values } = parseFlags(argv, { ...CHANGE_OPTIONS, title: { type: 'string' }, description: { type: 'string' } }, 'ledger add', false);
    const c = common(values, io, 'add');
    if (values.title === undefined) usageError('--title TEXT is required', 'add');
    const title = values.title;
    return withStore(c, false, (store) => {
      const task = store.addTask({ title, ...(values.description === undefined ? {} : { description: values.description }), ...actor(values, 'add') });
      if (c.json) printJson(io, { persona: c.personaId, task });
      else io.stdout(taskLine(task));
      return 0;
    });
  },
};

// ---- ledger move

export const ledgerMoveCommand: Command = {
  path: ['ledger', 'move'],
  summary: 'move a task to another lifecycle state',
  usage: `Usage: runtimectl ledger move TASK-ID STATE --persona ID [--reason TEXT] [options]

Lifecycle: proposed → ready → implementing → verification → integration → accepted.
Any task in flight may move to blocked, and back only to the state it was blocked from
(not while a surprise naming it is open). verification and integration may move to
revision; revision moves back to implementing. accepted is final. An illegal move is
refused with the legal next states named.

Options:
  --reason TEXT      why (kept in the task's history)
${CHANGE_USAGE}
${COMMON_USAGE}
`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { ...CHANGE_OPTIONS, reason: { type: 'string' } }, 'ledger move');
    const c = common(values, io, 'move');
    const [id, stateName, extra] = positionals;
    if (id === undefined || stateName === undefined || extra !== undefined) usageError('expected TASK-ID STATE', 'move');
    const to = parseTaskState(stateName);
    return withStore(c, false, (store) => {
      const from = store.getTask(id).state;
      const task = store.moveTask(id, to, { ...actor(values, 'move'), ...(values.reason === undefined ? {} : { reason: values.reason }) });
      if (c.json) printJson(io, { persona: c.personaId, task });
      else io.stdout(`${task.id}: ${from} → ${task.state}\n`);
      return 0;
    });
  },
};

// ---- ledger lease

function leaseLine(lease: Lease, now: number): string {
  const status = now < lease.expiresAt ? `held, ${lease.expiresAt - now} ms left` : `expired at ${lease.expiresAt}, not reconciled`;
  return `${lease.resource}  ${lease.owner}  (${status})\n`;
}

export const ledgerLeaseCommand: Command = {
  path: ['ledger', 'lease'],
  summary: 'acquire, renew, release, reconcile or list resource leases',
  usage: `Usage: runtimectl ledger lease <action> [RESOURCE] --persona ID [options]

Actions:
  acquire RESOURCE --owner WHO --ttl DURATION   take a lease (the same owner again renews it)
  renew RESOURCE --owner WHO --ttl DURATION     extend the owner's lease
  release RESOURCE --owner WHO                  give it back
  reconcile RESOURCE --owner-gone|--owner-alive [--reason TEXT]
                                                record the lead's finding about the owner;
                                                gone frees the resource
  list                                          every lease, held or expired

An expired lease is not free: another owner is refused until the old owner has been
reconciled as gone. DURATION: 500ms, 90s, 15m, 2h, 1d or bare milliseconds.

${CHANGE_USAGE}
${COMMON_USAGE}
`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(
      argv,
      {
        ...CHANGE_OPTIONS,
        owner: { type: 'string' },
        ttl: { type: 'string' },
        'owner-gone': { type: 'boolean' },
        'owner-alive': { type: 'boolean' },
        reason: { type: 'string' },
      },
      'ledger lease',
    );
    const c = common(values, io, 'lease');
    const [action, resource, extra] = positionals;
    const when = actor(values, 'lease');
    if (action === 'list') {
      if (resource !== undefined) usageError('lease list takes no RESOURCE', 'lease');
      return withStore(c, true, (store) => {
        const leases = store.listLeases();
        if (c.json) printJson(io, { persona: c.personaId, now: when.now, leases: leases.map((l) => ({ ...l, expired: when.now >= l.expiresAt })) });
        else {
          for (const lease of leases) io.stdout(leaseLine(lease, when.now));
          io.stdout(`${leases.length} lease(s)\n`);
        }
        return 0;
      });
    }
    if (action === undefined || !['acquire', 'renew', 'release', 'reconcile'].includes(action)) {
      usageError(`expected an action: acquire, renew, release, reconcile or list${action === undefined ? '' : ` (got "${action}")`}`, 'lease');
    }
    if (resource === undefined || extra !== undefined) usageError(`expected lease ${action} RESOURCE`, 'lease');
    const owner = (): string => values.owner ?? usageError(`lease ${action} needs --owner WHO`, 'lease');
    const ttl = (): number => parseDuration(values.ttl ?? usageError(`lease ${action} needs --ttl DURATION`, 'lease'), 'lease');
    return withStore(c, false, (store) => {
      let result: unknown;
      let line: string;
      if (action === 'acquire' || action === 'renew') {
        const lease = action === 'acquire' ? store.acquireLease(resource, owner(), ttl(), when.now) : store.renewLease(resource, owner(), ttl(), when.now);
        result = { lease };
        line = `${action === 'acquire' ? 'acquired' : 'renewed'} ${leaseLine(lease, when.now)}`;
      } else if (action === 'release') {
        store.releaseLease(resource, owner(), when.now);
        result = { released: resource };
        line = `released ${resource}\n`;
      } else {
        if (values['owner-gone'] === values['owner-alive']) usageError('lease reconcile needs exactly one of --owner-gone or --owner-alive', 'lease');
        const outcome = store.reconcileLease(resource, {
          ownerGone: values['owner-gone'] === true,
          ...when,
          ...(values.reason === undefined ? {} : { reason: values.reason }),
        });
        result = outcome;
        line = outcome.released ? `reconciled: ${outcome.lease.owner} is gone; ${resource} is free\n` : `reconciled: ${outcome.lease.owner} is alive; the lease stays\n`;
      }
      if (c.json) printJson(io, { persona: c.personaId, ...(result as object) });
      else io.stdout(line);
      return 0;
    });
  },
};

// ---- ledger checkpoint

function checkpointText(cp: Checkpoint): string {
  const b = cp.body;
  const lines = [`${cp.taskId} checkpoint ${cp.seq} by ${cp.by} at ${cp.at}`, `  next action: ${b.nextAction}`];
  if (b.changedPaths.length > 0) lines.push(`  changed: ${b.changedPaths.join(', ')}`);
  for (const cmd of b.commands) lines.push(`  $ ${cmd.command}  →  ${cmd.result}${cmd.exitCode === undefined || cmd.exitCode === null ? '' : ` (exit ${cmd.exitCode})`}`);
  if (b.openSurprises.length > 0) lines.push(`  open surprises: ${b.openSurprises.join(', ')}`);
  if (b.heldLeases.length > 0) lines.push(`  held leases: ${b.heldLeases.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

function readBodyFile(file: string, io: CliIo): unknown {
  const abs = path.resolve(io.cwd, file);
  if (!existsSync(abs)) throw kernelError('RTC_ERR_CLI_FILE_NOT_FOUND', `--file ${file}: no such file`, { details: { path: file } });
  return parseYaml(readFileSync(abs, 'utf8'), file);
}

export const ledgerCheckpointCommand: Command = {
  path: ['ledger', 'checkpoint'],
  summary: 'add, show or list a task\'s resumption checkpoints',
  usage: `Usage: runtimectl ledger checkpoint <action> TASK-ID --persona ID [options]

Actions:
  add TASK-ID (--file FILE | --next-action TEXT [--changed PATH]... [--lease R]... [--surprise S]...)
                   record a checkpoint; FILE is YAML or JSON with changedPaths, commands
                   [{command, result, exitCode}], artifacts [{path, sha256}], openSurprises,
                   heldLeases, sessionId, model {requested, observed}, nextAction
  show TASK-ID     the latest checkpoint
  list TASK-ID     every checkpoint, oldest first

A checkpoint is a bounded resumption record: at most 200 paths, 100 commands, strings of
at most 2,000 characters, 64 KiB in all. Raw logs belong in evidence.

${CHANGE_USAGE}
${COMMON_USAGE}
`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(
      argv,
      {
        ...CHANGE_OPTIONS,
        file: { type: 'string' },
        'next-action': { type: 'string' },
        changed: { type: 'string', multiple: true },
        lease: { type: 'string', multiple: true },
        surprise: { type: 'string', multiple: true },
      },
      'ledger checkpoint',
    );
    const c = common(values, io, 'checkpoint');
    const [action, taskId, extra] = positionals;
    if (action === undefined || !['add', 'show', 'list'].includes(action)) usageError('expected an action: add, show or list', 'checkpoint');
    if (taskId === undefined || extra !== undefined) usageError(`expected checkpoint ${action} TASK-ID`, 'checkpoint');
    if (action === 'add') {
      const quick = values['next-action'] !== undefined;
      if ((values.file === undefined) === !quick) usageError('checkpoint add needs exactly one of --file FILE or --next-action TEXT', 'checkpoint');
      const body =
        values.file !== undefined
          ? readBodyFile(values.file, io)
          : { nextAction: values['next-action'], changedPaths: values.changed ?? [], heldLeases: values.lease ?? [], openSurprises: values.surprise ?? [] };
      return withStore(c, false, (store) => {
        const checkpoint = store.addCheckpoint(taskId, body as never, actor(values, 'checkpoint'));
        if (c.json) printJson(io, { persona: c.personaId, checkpoint });
        else io.stdout(checkpointText(checkpoint));
        return 0;
      });
    }
    return withStore(c, true, (store) => {
      const checkpoints = action === 'show' ? [store.latestCheckpoint(taskId)].filter((cp) => cp !== undefined) : store.listCheckpoints(taskId);
      if (c.json) printJson(io, action === 'show' ? { persona: c.personaId, checkpoint: checkpoints[0] ?? null } : { persona: c.personaId, checkpoints });
      else if (checkpoints.length === 0) io.stdout(`${taskId} has no checkpoint\n`);
      else for (const cp of checkpoints) io.stdout(checkpointText(cp));
      return 0;
    });
  },
};

// ---- ledger surprise

function surpriseLine(s: Surprise): string {
  const tail = s.state === 'open' ? `blocks ${s.affects.join(', ') || 'nothing'}` : `resolved: ${s.outcome ?? ''}`;
  return `${s.id}  ${s.state.padEnd(8)}  ${s.observation}  (${tail})\n`;
}

export const ledgerSurpriseCommand: Command = {
  path: ['ledger', 'surprise'],
  summary: 'record, resolve or list surprises (which block the tasks they name)',
  usage: `Usage: runtimectl ledger surprise <action> --persona ID [options]

Actions:
  record --observation TEXT [--evidence REF]... [--affects TASK-ID]...
                   record a falsified prediction, contradiction, regression or instrument
                   effect; every task it names is blocked until it is resolved
  resolve SURPRISE-ID --outcome TEXT
                   resolve it; tasks with no other open surprise return to where they were
  list [--state open|resolved]

${CHANGE_USAGE}
${COMMON_USAGE}
`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(
      argv,
      {
        ...CHANGE_OPTIONS,
        observation: { type: 'string' },
        evidence: { type: 'string', multiple: true },
        affects: { type: 'string', multiple: true },
        outcome: { type: 'string' },
        state: { type: 'string' },
      },
      'ledger surprise',
    );
    const c = common(values, io, 'surprise');
    const [action, id, extra] = positionals;
    if (extra !== undefined) usageError('too many arguments', 'surprise');
    if (action === 'list') {
      const state = values.state;
      if (state !== undefined && state !== 'open' && state !== 'resolved') usageError('--state must be open or resolved', 'surprise');
      return withStore(c, true, (store) => {
        const surprises = store.listSurprises(state === undefined ? {} : { state });
        if (c.json) printJson(io, { persona: c.personaId, surprises });
        else {
          for (const s of surprises) io.stdout(surpriseLine(s));
          io.stdout(`${surprises.length} surprise(s)\n`);
        }
        return 0;
      });
    }
    if (action === 'record') {
      if (id !== undefined) usageError('surprise record takes no positional argument', 'surprise');
      if (values.observation === undefined) usageError('surprise record needs --observation TEXT', 'surprise');
      const observation = values.observation;
      return withStore(c, false, (store) => {
        const result = store.recordSurprise({ observation, evidence: values.evidence ?? [], affects: values.affects ?? [], ...actor(values, 'surprise') });
        if (c.json) printJson(io, { persona: c.personaId, ...result });
        else io.stdout(`recorded ${result.surprise.id}; blocked: ${result.blocked.join(', ') || 'none'}\n`);
        return 0;
      });
    }
    if (action === 'resolve') {
      if (id === undefined) usageError('expected surprise resolve SURPRISE-ID', 'surprise');
      if (values.outcome === undefined) usageError('surprise resolve needs --outcome TEXT', 'surprise');
      const outcome = values.outcome;
      return withStore(c, false, (store) => {
        const result = store.resolveSurprise(id, { outcome, ...actor(values, 'surprise') });
        if (c.json) printJson(io, { persona: c.personaId, ...result });
        else io.stdout(`resolved ${result.surprise.id}; unblocked: ${result.unblocked.join(', ') || 'none'}\n`);
        return 0;
      });
    }
    return usageError('expected an action: record, resolve or list', 'surprise');
  },
};

/** Every verb runs the ledger in its plugin: its isolate (and the backends') is built first. */
function withLedgerPlugin(command: Command): Command {
  return {
    ...command,
    async run(argv, io) {
      await prepareLedger();
      return command.run(argv, io);
    },
  };
}

export const LEDGER_CLI_COMMANDS: readonly Command[] = [
  ledgerCommand,
  ledgerInitCommand,
  ledgerListCommand,
  ledgerAddCommand,
  ledgerMoveCommand,
  ledgerLeaseCommand,
  ledgerCheckpointCommand,
  ledgerSurpriseCommand,
].map(withLedgerPlugin);
