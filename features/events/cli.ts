/**
 * `runtimectl events repair --persona ID`: the recovery path for a persona's event log that
 * two kernels forked (issue 12). It takes the persona's writer lock (so it never runs beside
 * a kernel), keeps the longest chain as the log, keeps the whole original file aside as
 * evidence, and records the repair as a `log_repaired` event (kernel/events/fork-repair.ts).
 * `--dry-run` shows the chains and changes nothing.
 */
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { analyzeFork, notForked, repairForkedLog, type ChainSummary, type ForkAnalysis } from './fork-repair.ts';
import { openBackend } from '../persistence/open.ts';
import { existingPersonaDir, existingStateDir } from '../persistence/state/state-dir.ts';
import { lockPersonaWriter } from '../persistence/state/writer-lock.ts';
import { parseFlags, printJson, type CliIo, type Command } from '../command/command.ts';

const REPAIR_USAGE = `Usage: runtimectl events repair --persona ID [--state-dir DIR] [--keep N] [--dry-run] [--json]

Repairs a persona's event log that two kernels appended to at once (verify reports "seq N
where seq M was expected" and every run stops with RTC_ERR_EVENTS_CHAIN). After the sound
part of the log, each event is put back on the chain it links to; the longest chain stays as
the log, byte for byte. Nothing is lost or edited: the whole original file is kept beside the
log as logs/events.jsonl.forked-<seq>, and a log_repaired event names it, its sha256, and
every chain set aside (seq range, hashes, the tokens its cycles spent, which budgets keep
counting). The persona must not be running (its writer lock is taken).

Options:
  --persona ID      the persona (required)
  --state-dir DIR   default: $SCIDEX_AGENT_STATE_DIR, else ./state
  --keep N          keep chain N instead of the longest (numbers as --dry-run lists them)
  --dry-run         list the chains and what would be kept; change nothing
  --json            print one JSON document
`;

const GROUP_USAGE = `Usage: runtimectl events <command> [options]

A persona's hash-chained event log (<state>/<persona>/logs/events.jsonl).

Commands:
  repair   put a log that two kernels forked back on one chain, keeping the rest aside

"runtimectl verify" checks every log. Every command takes --help.
`;

function chainLine(chain: ChainSummary, index: number, kept: boolean): string {
  return `  ${kept ? 'keep' : 'aside'} #${index}: seq ${chain.first_seq}..${chain.last_seq}, ${chain.events} event(s), ${chain.cycles} cycle(s), first at line ${chain.first_line}, last hash ${chain.last_hash.slice(0, 12)}…`;
}

function describe(analysis: ForkAnalysis, keep: number): string {
  const lines = [`  sound up to seq ${analysis.prefix.last_seq} (${analysis.prefix.events} event(s)); ${analysis.chains.length} chain(s) after it${analysis.orphans ? `; ${analysis.orphans} line(s) link to no chain` : ''}`];
  analysis.chains.forEach((chain, i) => lines.push(chainLine(chain, i + 1, i + 1 === keep)));
  return `${lines.join('\n')}\n`;
}

export const eventsCommand: Command = {
  path: ['events'],
  summary: "a persona's event log: repair a forked log",
  usage: GROUP_USAGE,
  async run() {
    throw kernelError('RTC_ERR_CLI_USAGE', 'name an events command: repair; see "runtimectl events --help"');
  },
};

export const eventsRepairCommand: Command = {
  path: ['events', 'repair'],
  summary: 'repair an event log two kernels forked: keep the longest chain, the rest aside',
  usage: REPAIR_USAGE,
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values } = parseFlags(
      argv,
      { persona: { type: 'string' }, 'state-dir': { type: 'string' }, keep: { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } },
      'events repair',
      false,
    );
    if (values.persona === undefined) throw kernelError('RTC_ERR_CLI_USAGE', '--persona ID is required; see "runtimectl events repair --help"');
    if (values.keep !== undefined && !/^[1-9]\d*$/.test(values.keep)) throw kernelError('RTC_ERR_CLI_USAGE', `--keep ${values.keep}: a chain number (1 or more); see "runtimectl events repair --help"`);
    const keep = values.keep === undefined ? 1 : Number(values.keep);
    const choice = existingStateDir(values['state-dir'], io.env, io.cwd);
    const personaDir = existingPersonaDir(choice, values.persona, 'events repair');
    const backend = await openBackend(personaDir, undefined, { readonly: true, personaId: values.persona });
    try {
      if (backend.name !== 'jsonl-fs') {
        const report = backend.events.verify();
        throw kernelError('RTC_ERR_CLI_USAGE', `persona ${values.persona} keeps its events in the ${backend.name} backend, whose store refuses a second writer's appends, so it cannot fork; ${report.ok ? 'its chain is sound' : `its chain has another problem: ${report.problems[0]?.what ?? 'see runtimectl verify'}`}`);
      }
      const file = backend.events.location;
      const relative = path.relative(io.cwd, file);
      const shown = relative !== '' && !relative.startsWith('..') ? relative : file;
      const lock = await lockPersonaWriter(backend, 'events repair');
      try {
        const analysis = analyzeFork(file);
        if (!analysis.forked && analysis.orphans > 0) throw notForked(analysis);
        if (!analysis.forked) {
          const text = `${shown}: not forked: ${analysis.prefix.events} event(s) in one sound chain${analysis.torn ? ' (a torn last line is cut off by the next open)' : ''}; nothing to repair`;
          if (values.json) printJson(io, { repaired: false, ...analysis });
          else io.stdout(`${text}\n`);
          return 0;
        }
        if (values['dry-run']) {
          if (values.json) printJson(io, { repaired: false, dry_run: true, keep, ...analysis });
          else io.stdout(`${shown}: forked (dry run, nothing changed)\n${describe(analysis, keep)}`);
          return 0;
        }
        const repair = await repairForkedLog(file, { keep });
        if (values.json) printJson(io, { repaired: true, ...repair });
        else {
          io.stdout(`${shown}: repaired\n${describe(repair, keep)}`);
          io.stdout(`  the original log is kept as ${path.join(path.dirname(shown), repair.saved_as)} (sha256 ${repair.saved_sha256.slice(0, 16)}…); log_repaired is seq ${repair.repair_seq}\n`);
        }
        return 0;
      } finally {
        lock.release();
      }
    } finally {
      await backend.close();
    }
  },
};

export const EVENTS_CLI_COMMANDS: readonly Command[] = [eventsCommand, eventsRepairCommand];
