/**
 * `runtimectl replay [--state-dir DIR] [--persona ID] [--cycle N | --all] [--json]`: re-runs
 * recorded cycles on their recorded bundles while the broker answers from the record and
 * performs no effect (features/science-loop/replay-persona.ts, over the trace of
 * features/cycle-recording). Exit 0 when every selected cycle matched; 1 with the first
 * divergence named (persona, cycle, call, effect index, expected, asked).
 */
import { errorLine, isKernelError, kernelError } from '../../kernel/errors.ts';
import type { ReplayReport } from '../science-loop/replay-persona.ts';
import { pluginSearchPath, scanRegistry } from '../plugin-search/scan.ts';
import { replayPersona } from '../science-loop/preset.ts';
import { parseFlags, printJson, type CliIo, type Command } from '../command/command.ts';
import { listPersonaIds } from '../persistence/state-dir.ts';
import { skillSearchPath } from '../skills/search-path.ts';
import { existingPersonaDir, existingStateDir } from '../persistence/state/state-dir.ts';

const USAGE = `Usage: runtimectl replay [--state-dir DIR] [--persona ID] [--cycle N | --from-cycle N | --all] [--installed] [--plugins-dir DIR]... [--skills-dir DIR]... [--json]

Re-runs recorded cycles (and, without --cycle, the tool calls made outside any cycle by
"mcp serve" or "tools call" on their own: trace/tools.jsonl): every plugin call of a cycle runs again on the bundle it ran
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
  --from-cycle N    cycle N and every later one (warm-up as for --cycle)
  --all             every recorded cycle (the default)
                    --cycle and --from-cycle read only the sealed segments (of the event
                    log and of the trace) that can hold the cycles they need
  --installed       replay the installed plugins' current code instead of the recorded
                    bundles: does an upgrade still make the recorded cycles' decisions?
  --plugins-dir DIR another plugin folder, as given to run (repeatable; after
                    $RUNTIMECTL_PLUGIN_PATH and the built-in plugins/)
  --skills-dir DIR  another folder of skills, as given to run (repeatable; after
                    $RUNTIMECTL_SKILLS_PATH): where recorded skill-script tool calls find
                    their skill's manifest
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
    return `${r.persona}: DIVERGED at cycle ${d.cycle}, call ${d.call} (${d.plugin}.${d.method})${d.effect !== null ? `, effect ${d.effect}` : ''}\n  ${d.code}: ${d.message}\n  recorded: ${d.expected}\n  asked:    ${d.got}\n`;
  }
  const tools = r.tool_calls > 0 ? ` and ${r.tool_calls} tool call${r.tool_calls === 1 ? '' : 's'} outside cycles` : '';
  const read = r.segments_read.events + r.segments_read.trace > 0 ? `; read ${r.segments_read.events} sealed event segment(s) and ${r.segments_read.trace} sealed trace segment(s)` : '';
  return `${r.persona}: ${r.cycles} cycle${r.cycles === 1 ? '' : 's'}${tools}${warm}, ${r.calls} plugin calls, ${r.effects} effects replayed: identical${unrecorded}${read}\n`;
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(
    argv,
    { 'state-dir': { type: 'string' }, persona: { type: 'string' }, cycle: { type: 'string' }, 'from-cycle': { type: 'string' }, all: { type: 'boolean' }, installed: { type: 'boolean' }, json: { type: 'boolean' }, 'plugins-dir': { type: 'string', multiple: true }, 'skills-dir': { type: 'string', multiple: true } },
    'replay',
    false,
  );
  const selections = [values.cycle !== undefined && '--cycle', values['from-cycle'] !== undefined && '--from-cycle', values.all && '--all'].filter(Boolean);
  if (selections.length > 1) throw kernelError('RTC_ERR_CLI_USAGE', `${selections.join(' and ')} are exclusive; see "runtimectl replay --help"`);
  for (const flag of ['cycle', 'from-cycle'] as const) {
    const value = values[flag];
    if (value === undefined) continue;
    if (!/^[1-9]\d*$/.test(value)) throw kernelError('RTC_ERR_CLI_USAGE', `--${flag} ${value}: must be a cycle number (1 or more)`);
    if (values.persona === undefined) throw kernelError('RTC_ERR_CLI_USAGE', `--${flag} needs --persona (cycle numbers are per persona)`);
  }
  const choice = existingStateDir(values['state-dir'], io.env, io.cwd);
  const { stateDir, given: shown } = choice;
  let ids: string[];
  if (values.persona !== undefined) {
    existingPersonaDir(choice, values.persona, 'replay');
    ids = [values.persona];
  } else ids = listPersonaIds(stateDir);

  // The plugins the run had: the built-in folder, RUNTIMECTL_PLUGIN_PATH and --plugins-dir (one scan).
  const registry = scanRegistry(pluginSearchPath({ env: io.env, dirs: values['plugins-dir'] ?? [], cwd: io.cwd }));
  const skillsDirs = skillSearchPath(values['skills-dir'], io);
  const entries: Entry[] = [];
  for (const persona of ids) {
    try {
      const report = await replayPersona({
        stateDir,
        personaId: persona,
        registry,
        ...(skillsDirs.length > 0 ? { skillsDirs } : {}),
        ...(values.cycle !== undefined ? { cycle: Number(values.cycle) } : {}),
        ...(values['from-cycle'] !== undefined ? { fromCycle: Number(values['from-cycle']) } : {}),
        installed: values.installed ?? false,
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
