/**
 * `runtimectl inbox add|list` and `runtimectl dm send`: giving a persona work from the command
 * line, into the two places its science loop looks each cycle (work.ts).
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { hint, parseFlags, printJson, type CliIo, type Command } from '../command/command.ts';
import { kernelError } from '../../kernel/errors.ts';
import { listPersonaIds, looksLikeFile, resolvePersona } from '../profiles/load.ts';
import { chooseStateDir, ensurePersonaDir, ensureStateDir, existingPersonaDir, existingStateDir, knownPersonaDir } from '../persistence/state/state-dir.ts';
import { shownPath } from '../../kernel/shown-path.ts';
import { MAX_PACKET_BYTES } from '../science-loop/probes.ts';
import { addPacket, listInbox, queuedMessages, sendMessage, type AddedPacket } from './work.ts';
import { readWorkState } from './work-state.ts';

const PERSONA_USAGE = `  --persona ID_OR_FILE  the persona: a profile id (policies/personas/ID.yaml), a profile file,
                        or an id whose folder is in the state directory
  --state-dir DIR       default: $SCIDEX_AGENT_STATE_DIR, else ./state`;

const ADD_USAGE = `Usage: runtimectl inbox add --persona ID_OR_FILE FILE... [--state-dir DIR] [--json]
       runtimectl inbox add --persona ID_OR_FILE --text TEXT [--title TITLE] [--name NAME] [--state-dir DIR] [--json]

Gives the persona work packets: each FILE (or the --text) becomes one file in
<state>/<persona>/inbox/, which its next cycle loads (once, by the sha256 of its bytes) and
offers its executor. A packet is a request in words, at most ${MAX_PACKET_BYTES / 1024} KiB; its title is its first
heading or line (or "title" in a .json packet), and a line "tier: N" (1-6) hints how much it
is worth. Written atomically, never over another packet; refused when the persona has already
loaded the same bytes (it would skip them). The persona may be running.

Options:
${PERSONA_USAGE}
  --text TEXT           the packet's text instead of files
  --title TITLE         with --text: its first line, as a heading
  --name NAME           the packet's file name (default: the FILE's, or a dated one for --text)
  --json                {persona, added: [{name, file, bytes, sha256, title, already_there}]}
`;

const LIST_USAGE = `Usage: runtimectl inbox list --persona ID_OR_FILE [--state-dir DIR] [--json]

Lists the persona's work packets and what became of each: waiting (its next cycle loads it),
pending (loaded, waiting for an executor), done (loaded and handled), skipped (it cannot be
loaded: too large, not a file); and how many direct messages are queued and loaded.

Options:
${PERSONA_USAGE}
  --json                {persona, packets: [{name, bytes, title, status}], messages: {queued, loaded}}
`;

const SEND_USAGE = `Usage: runtimectl dm send --persona ID_OR_FILE TEXT... [--from NAME] [--subject S] [--state-dir DIR] [--json]
       runtimectl dm send --persona ID_OR_FILE --file FILE [--from NAME] [--subject S] ...

Sends the persona a direct message: one line {"from","subject","text","sent_at"} appended
to <state>/<persona>/dm/queue.jsonl, durably, in one write. Its next cycle loads the new
lines and offers each to its executor as "from NAME: SUBJECT". The persona may be running.

Options:
${PERSONA_USAGE}
  --from NAME           who sends it (default: $USER, else operator)
  --subject S           its subject (default: the text's first line)
  --file FILE           the text from a file instead of the command line
  --json                {persona, file, line, bytes}
`;

const PERSONA_FLAGS = { persona: { type: 'string' }, 'state-dir': { type: 'string' }, json: { type: 'boolean' } } as const;

/** The persona's id, from an id or a profile file. */
function personaIdOf(ref: string | undefined, command: string, io: CliIo): string {
  if (!ref) throw kernelError('RTC_ERR_CLI_USAGE', `--persona ID_OR_FILE is required; see "runtimectl ${command} --help"`);
  return looksLikeFile(ref) ? resolvePersona(ref, { cwd: io.cwd }).profile.id : ref;
}

/** The persona's folder for a command that gives work: the state directory and the folder are created (as run would). */
function folderToWrite(ref: string | undefined, stateFlag: string | undefined, command: string, io: CliIo): { id: string; dir: string } {
  const id = personaIdOf(ref, command, io);
  const choice = chooseStateDir(stateFlag, io.env, io.cwd);
  // A typo is refused before anything is created: the id names a profile, or a folder that is there.
  const known = looksLikeFile(ref!) ? [id] : listPersonaIds();
  const dir = knownPersonaDir(choice, id, command, known);
  ensureStateDir(choice.given, choice.stateDir);
  ensurePersonaDir(choice.stateDir, id);
  return { id, dir };
}

function datedName(title: string | undefined, now: Date): string {
  const slug = (title ?? 'packet').toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'packet';
  return `${now.toISOString().replace(/[:.]/g, '-')}-${slug}.md`;
}

function readInput(file: string, io: CliIo, cap: number): Buffer {
  const full = path.resolve(io.cwd, file);
  let stat;
  try {
    stat = statSync(full);
  } catch {
    throw kernelError('RTC_ERR_CLI_FILE_NOT_FOUND', `${file}: no such file`);
  }
  if (!stat.isFile()) throw kernelError('RTC_ERR_CLI_USAGE', `${file}: not a regular file`);
  if (stat.size > cap) throw kernelError('RTC_ERR_WORK_REFUSED', `${file} is ${stat.size} bytes, over the ${cap}-byte cap a persona loads (a packet is a request, not a data set: put the data in its workspace and name it in the packet)`);
  return readFileSync(full);
}

export const inboxAddCommand: Command = {
  path: ['inbox', 'add'],
  summary: 'give a persona work packets (files in its inbox, loaded by its next cycle)',
  usage: ADD_USAGE,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { ...PERSONA_FLAGS, text: { type: 'string' }, title: { type: 'string' }, name: { type: 'string' } }, 'inbox add');
    if (values.text !== undefined && positionals.length > 0) throw kernelError('RTC_ERR_CLI_USAGE', 'give FILE... or --text, not both; see "runtimectl inbox add --help"');
    if (values.text === undefined && positionals.length === 0) throw kernelError('RTC_ERR_CLI_USAGE', 'name a FILE (or give --text TEXT); see "runtimectl inbox add --help"');
    if (values.title !== undefined && values.text === undefined) throw kernelError('RTC_ERR_CLI_USAGE', '--title goes with --text (a file has its own first line); see "runtimectl inbox add --help"');
    if (values.name !== undefined && positionals.length > 1) throw kernelError('RTC_ERR_CLI_USAGE', '--name names one packet; give one FILE with it; see "runtimectl inbox add --help"');
    // Every input is read and checked before anything is written: all of them go in, or none.
    const now = new Date();
    const packets: { name: string; bytes: Buffer }[] =
      values.text !== undefined
        ? [{ name: values.name ?? datedName(values.title ?? values.text.split('\n')[0], now), bytes: Buffer.from(values.title ? `# ${values.title}\n\n${values.text}\n` : values.text.endsWith('\n') ? values.text : `${values.text}\n`, 'utf8') }]
        : positionals.map((file) => ({ name: values.name ?? path.basename(file), bytes: readInput(file, io, MAX_PACKET_BYTES) }));
    const names = packets.map((p) => p.name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice) throw kernelError('RTC_ERR_CLI_USAGE', `two packets would both be named ${twice}; give them apart`);
    const { id, dir } = folderToWrite(values.persona, values['state-dir'], 'inbox add', io);
    const { state } = await readWorkState(dir, id);
    const added: AddedPacket[] = [];
    for (const p of packets) added.push(addPacket(dir, p.name, p.bytes, state ?? undefined));
    if (values.json) {
      printJson(io, { persona: id, added: added.map((a) => ({ name: a.name, file: a.file, bytes: a.bytes, sha256: `sha256:${a.sha256}`, title: a.title, already_there: a.alreadyThere })) });
      return 0;
    }
    for (const a of added) io.stdout(`${a.alreadyThere ? 'already in the inbox' : 'added'}: ${shownPath(a.file, io.cwd)} (${a.bytes} bytes) "${a.title}"\n`);
    io.stdout(hint(io, `persona ${id} loads ${added.length === 1 ? 'it' : 'them'} in its next cycle (runtimectl run --persona ${values.persona}${values['state-dir'] ? ` --state-dir ${values['state-dir']}` : ''}); see what became of ${added.length === 1 ? 'it' : 'them'}: runtimectl inbox list --persona ${values.persona}${values['state-dir'] ? ` --state-dir ${values['state-dir']}` : ''}\n`));
    return 0;
  },
};

export const inboxListCommand: Command = {
  path: ['inbox', 'list'],
  summary: "list a persona's work packets and what became of each",
  usage: LIST_USAGE,
  async run(argv, io) {
    const { values } = parseFlags(argv, PERSONA_FLAGS, 'inbox list', false);
    const id = personaIdOf(values.persona, 'inbox list', io);
    const choice = existingStateDir(values['state-dir'], io.env, io.cwd);
    const dir = existingPersonaDir(choice, id, 'inbox list');
    const { state, problem } = await readWorkState(dir, id);
    if (problem) io.stderr(`runtimectl: inbox list: cannot tell what persona ${id} loaded (${problem}); status unknown\n`);
    const packets = listInbox(dir, state);
    const queued = queuedMessages(dir);
    const loaded = state ? Math.min(state.dmLoadedLines, queued) : 0;
    if (values.json) {
      printJson(io, { persona: id, packets, messages: { queued, loaded: state === null ? null : loaded } });
      return 0;
    }
    if (packets.length === 0) io.stdout(hint(io, `persona ${id} has no work packets (give it one: runtimectl inbox add --persona ${values.persona} FILE)\n`));
    const width = Math.max(0, ...packets.map((p) => p.name.length));
    for (const p of packets) io.stdout(`${p.name.padEnd(width)}  ${p.status.padEnd(7)}  ${p.bytes === null ? '' : `${p.bytes} B  `}${p.title ?? p.reason ?? ''}\n`);
    io.stdout(`direct messages: ${queued} queued, ${state === null ? 'unknown how many' : loaded} loaded\n`);
    return 0;
  },
};

export const dmSendCommand: Command = {
  path: ['dm', 'send'],
  summary: 'send a persona a direct message (a line of its dm queue, loaded by its next cycle)',
  usage: SEND_USAGE,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { ...PERSONA_FLAGS, from: { type: 'string' }, subject: { type: 'string' }, file: { type: 'string' } }, 'dm send');
    if (values.file !== undefined && positionals.length > 0) throw kernelError('RTC_ERR_CLI_USAGE', 'give the TEXT or --file, not both; see "runtimectl dm send --help"');
    const text = values.file !== undefined ? readInput(values.file, io, MAX_PACKET_BYTES).toString('utf8') : positionals.join(' ');
    if (text.trim() === '') throw kernelError('RTC_ERR_CLI_USAGE', 'the message is empty: give its TEXT (or --file FILE); see "runtimectl dm send --help"');
    const from = values.from ?? io.env.USER ?? 'operator';
    const { id, dir } = folderToWrite(values.persona, values['state-dir'], 'dm send', io);
    const sent = sendMessage(dir, { from, ...(values.subject ? { subject: values.subject } : {}), text });
    if (values.json) {
      printJson(io, { persona: id, file: sent.file, line: sent.line, bytes: sent.bytes });
      return 0;
    }
    io.stdout(`queued for persona ${id}: ${shownPath(sent.file, io.cwd)} line ${sent.line}, from ${from}; its next cycle loads it\n`);
    return 0;
  },
};

export const INBOX_CLI_COMMANDS: readonly Command[] = [inboxAddCommand, inboxListCommand, dmSendCommand];
