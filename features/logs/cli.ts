/**
 * `runtimectl logs [--persona ID] [--follow] [--json] [--tail N|all] [--state-dir DIR]`: a
 * persona's events (or every persona's), the last N of each, and with --follow every event
 * appended afterwards, across seals and rotations, until SIGINT or SIGTERM. Read through the
 * history's read path (follow.ts), so a tail of a year-old persona costs its last segment.
 * A persona whose history cannot be read gets one line on stderr and the others go on.
 */
import { parseFlags, type CliIo, type Command } from '../command/command.ts';
import { errorLine, kernelError } from '../../kernel/errors.ts';
import { shownPath } from '../../kernel/shown-path.ts';
import { PERSONA_ID_PATTERN } from '../../kernel/personas/profile-schema.ts';
import { personasWithHistory } from '../history/read-path.ts';
import { resolveStateDir } from '../persistence/state-dir.ts';
import { eventJson, eventLine } from './format.ts';
import { headSeq, PersonaFollower } from './follow.ts';

const USAGE = `Usage: runtimectl logs [--persona ID] [--follow] [--json] [--tail N|all] [--state-dir DIR]

Prints a persona's events (every persona's without --persona), the last --tail of each
(default 20), one line an event: time, persona, seq, type and what it says (a cycle: its
number, phase, outcome and reason, and proposals applied at its boundary).

Options:
  --persona ID      only this persona
  --follow, -f      keep printing events as they are appended (across sealed segments and
                    daily rotation), until SIGINT or SIGTERM; new personas are picked up
  --json            NDJSON: one event envelope a line, with its persona_id
  --tail N|all      how many of the latest events to print first (0: none, all: every one)
  --interval MS     how often --follow looks for new events (default 250)
  --state-dir DIR   the state directory (default: $SCIDEX_AGENT_STATE_DIR, else ./state)

Exit status: 0, or 1 when a persona's history could not be read.
`;

export interface FollowOptions {
  stateDir: string;
  persona?: string;
  tail: number;
  follow: boolean;
  json: boolean;
  intervalMs: number;
  signal?: AbortSignal;
}

function parseTail(value: string | undefined): number {
  if (value === undefined) return 20;
  if (value === 'all') return Infinity;
  if (!/^\d{1,9}$/.test(value)) throw kernelError('RTC_ERR_CLI_USAGE', `--tail ${value}: a whole number of events, or all`);
  return Number(value);
}

function parseInterval(value: string | undefined): number {
  if (value === undefined) return 250;
  if (!/^\d{1,7}$/.test(value) || Number(value) < 10) throw kernelError('RTC_ERR_CLI_USAGE', `--interval ${value}: milliseconds, at least 10`);
  return Number(value);
}

/** Waits `ms` or until the signal; the abort listener goes with the wait (a follow sleeps forever). */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** The tail, then (with follow) every new event until the signal; returns whether any persona failed. */
export async function printLogs(o: FollowOptions, out: (line: string) => void, err: (line: string) => void): Promise<boolean> {
  const followers = new Map<string, PersonaFollower>();
  const failing = new Map<string, string>();
  let failed = false;
  const personas = () => (o.persona !== undefined ? [o.persona] : personasWithHistory(o.stateDir));
  const report = (id: string, error: unknown) => {
    failed = true;
    const line = errorLine(error);
    // A damaged history is said once per new reason, not at every poll.
    if (failing.get(id) !== line) err(`runtimectl logs: persona ${id}: ${line}`);
    failing.set(id, line);
  };
  const start = async (id: string, tail: number) => {
    try {
      const head = await headSeq(o.stateDir, id);
      const from = tail === Infinity ? 0 : Math.max(0, head - tail);
      const f = new PersonaFollower(o.stateDir, id, from);
      followers.set(id, f);
      return f;
    } catch (error) {
      report(id, error);
      return undefined;
    }
  };
  const drain = async (f: PersonaFollower) => {
    try {
      for (;;) {
        const events = await f.poll();
        for (const e of events) out(o.json ? eventJson(f.persona, e) : eventLine(f.persona, e));
        if (events.length < 10_000) break;
      }
      failing.delete(f.persona);
    } catch (error) {
      report(f.persona, error);
    }
  };
  if (o.persona !== undefined && personasWithHistory(o.stateDir).indexOf(o.persona) < 0 && !o.follow) {
    err(`runtimectl: RTC_ERR_PERSONA_NOT_FOUND: persona ${o.persona} has no events under ${shownPath(o.stateDir)}`);
    return true;
  }
  for (const id of personas()) {
    const f = await start(id, o.tail);
    if (f) await drain(f);
  }
  if (!o.follow) return failed;
  while (!o.signal?.aborted) {
    await sleep(o.intervalMs, o.signal);
    if (o.signal?.aborted) break;
    for (const id of personas()) {
      // A persona that appears while following is followed from its first event.
      const f = followers.get(id) ?? (await start(id, Infinity));
      if (f) await drain(f);
    }
  }
  return failed;
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(
    argv,
    { persona: { type: 'string' }, follow: { type: 'boolean', short: 'f' }, json: { type: 'boolean' }, tail: { type: 'string' }, interval: { type: 'string' }, 'state-dir': { type: 'string' } },
    'logs',
    false,
  );
  if (values.persona !== undefined && !PERSONA_ID_PATTERN.test(values.persona)) throw kernelError('RTC_ERR_CLI_USAGE', `--persona ${JSON.stringify(values.persona)}: not a persona id`);
  const controller = new AbortController();
  const stop = () => controller.abort();
  if (values.follow) {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
  try {
    const failed = await printLogs(
      {
        stateDir: resolveStateDir(values['state-dir'], io),
        ...(values.persona !== undefined ? { persona: values.persona } : {}),
        tail: parseTail(values.tail),
        follow: values.follow === true,
        json: values.json === true,
        intervalMs: parseInterval(values.interval),
        signal: controller.signal,
      },
      (line) => io.stdout(`${line}\n`),
      (line) => io.stderr(`${line}\n`),
    );
    return failed ? 1 : 0;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

export const logsCommand: Command = { path: ['logs'], summary: "a persona's events, the latest and (--follow) as they are appended", usage: USAGE, run };
