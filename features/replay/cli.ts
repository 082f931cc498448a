/**
 * `runtimectl replay [--state-dir DIR] [--persona ID] [--cycle N | --all] [--json]`: re-runs
 * recorded cycles on their recorded bundles while the broker answers from the record and
 * performs no effect (kernel/replay). Exit 0 when every selected cycle matched; 1 with the
 * first divergence named (persona, cycle, call, effect index, expected, asked).
 */
import { errorLine, isKernelError, kernelError } from '../../kernel/errors.ts';
import { replayPersona, type ReplayReport } from '../../kernel/replay/replay-persona.ts';
import { parseFlags, printJson, type CliIo, type Command } from '../../kernel/cli/command.ts';
import { listPersonaIds } from '../verify/cli.ts';
import { existingPersonaDir, existingStateDir } from '../../kernel/storage/state-dir.ts';

const USAGE = `Usage: runtimectl replay [--state-dir DIR] [--persona ID] [--cycle N | --all] [--installed] [--json]

Re-runs recorded cycles: every plugin call of a cycle runs again on the bundle it ran
(kept in <state>/<persona>/trace/blobs), under the profile it ran under, while the broker
answers every clock, random, env, file, command, fetch and binding read from the record
and performs no effect. A cycle matches when each call asks for exactly the recorded
effects, returns the recorded result, and the trace hash recomputed from the replay
equals the one its event carries in the hash-chained log. A plugin whose bundle changed
since the recording is reported before the replay starts (the recorded bundle is replayed).

Options:
  --state-dir DIR   default: $SCIDEX_AGENT_STATE_DIR, else ./state
  --persona ID      only this persona (default: every persona in the state directory)
  --cycle N         only cycle N (earlier cycles since its plugins last started fresh are
                    replayed first to rebuild their state, and counted as warm-up)
  --all             every recorded cycle (the default)
  --installed       replay the installed plugins' current code instead of the recorded
                    bundles: does an upgrade still make the recorded cycles' decisions?
  --json            print one JSON document: {ok, personas: [...]}

Exit status: 0 when every replayed cycle matched; 1 when one diverged (the first is named:
persona, cycle, call, effect index, what was recorded and what the code asked for) or a
recording is missing or damaged; 2 for a usage error.
`;

type Entry = ReplayReport | { persona: string; error: string; code: string | null };

function isError(entry: Entry): entry is { persona: string; error: string; code: string | null } {
  return 'error' in entry;
}

function textReport(entry: Entry): string {
  if (isError(entry)) return `${entry.persona}: error: ${entry.error}\n`;
  const r = entry;
  const warm = r.warmup_cycles > 0 ? ` (after ${r.warmup_cycles} warm-up cycle${r.warmup_cycles === 1 ? '' : 's'})` : '';
  const unrecorded = r.unrecorded.length > 0 ? `; ${r.unrecorded.length} earlier cycle(s) ran before tracing and were not replayed` : '';
  if (r.divergence) {
    const d = r.divergence;
    return `${r.persona}: DIVERGED at cycle ${d.cycle}, call ${d.call} (${d.plugin}.${d.method})${d.effect !== null ? `, effect ${d.effect}` : ''}\n  ${d.message}\n  recorded: ${d.expected}\n  asked:    ${d.got}\n`;
  }
  return `${r.persona}: ${r.cycles} cycle${r.cycles === 1 ? '' : 's'}${warm}, ${r.calls} plugin calls, ${r.effects} effects replayed: identical${unrecorded}\n`;
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(
    argv,
    { 'state-dir': { type: 'string' }, persona: { type: 'string' }, cycle: { type: 'string' }, all: { type: 'boolean' }, installed: { type: 'boolean' }, json: { type: 'boolean' } },
    'replay',
    false,
  );
  if (values.cycle !== undefined && values.all) throw kernelError('RTC_ERR_CLI_USAGE', '--cycle and --all are exclusive; see "runtimectl replay --help"');
  if (values.cycle !== undefined && !/^[1-9]\d*$/.test(values.cycle)) throw kernelError('RTC_ERR_CLI_USAGE', `--cycle ${values.cycle}: must be a cycle number (1 or more)`);
  if (values.cycle !== undefined && values.persona === undefined) throw kernelError('RTC_ERR_CLI_USAGE', '--cycle needs --persona (cycle numbers are per persona)');
  const choice = existingStateDir(values['state-dir'], io.env, io.cwd);
  const { stateDir, given: shown } = choice;
  let ids: string[];
  if (values.persona !== undefined) {
    existingPersonaDir(choice, values.persona, 'replay');
    ids = [values.persona];
  } else ids = listPersonaIds(stateDir);

  const entries: Entry[] = [];
  for (const persona of ids) {
    try {
      const report = await replayPersona({
        stateDir,
        personaId: persona,
        ...(values.cycle !== undefined ? { cycle: Number(values.cycle) } : {}),
        installed: values.installed ?? false,
        ...(io.env['RUNTIMECTL_POSTGRES_DSN'] ? { dsn: io.env['RUNTIMECTL_POSTGRES_DSN'] } : {}),
        onNotice: (line) => {
          if (!values.json) io.stdout(`${line}\n`);
        },
      });
      entries.push(report);
    } catch (error) {
      if (!isKernelError(error)) throw error;
      entries.push({ persona, error: errorLine(error), code: error.code });
    }
    const last = entries.at(-1)!;
    if (!values.json) io.stdout(textReport(last));
  }
  const ok = entries.every((e) => !isError(e) && e.ok);
  if (values.json) printJson(io, { ok, state_dir: shown, personas: entries });
  else if (entries.length === 0) io.stdout(`no personas in ${shown}\n`);
  return ok ? 0 : 1;
}

export const replayCommand: Command = {
  path: ['replay'],
  summary: 'Re-run recorded cycles against their record; name the first divergence',
  usage: USAGE,
  run,
};
