/**
 * `runtimectl serve [--state-dir DIR] [--port N] [--host 127.0.0.1] [--allow-host NAME]...
 * [--operator]`: the operator's console in a browser (server.ts). Loopback unless --host says
 * otherwise; read-only unless --operator, which loads this operator's credential and prints a
 * one-time login URL that lets one browser decide (and a new one each time the last was used
 * or expired). Runs until SIGINT or SIGTERM.
 */
import { parseFlags, type CliIo, type Command } from '../command/command.ts';
import { kernelError } from '../../kernel/errors.ts';
import { resolveStateDir } from '../persistence/state-dir.ts';
import { startConsole } from './server.ts';
import { isLoopback } from './security.ts';
import { operatorDecider } from './decide.ts';

const USAGE = `Usage: runtimectl serve [--state-dir DIR] [--port N] [--host 127.0.0.1] [--allow-host NAME]... [--operator]

The operator's console: the fleet overview (last cycles, budget posture, tokens per hour over
24 hours and 7 days, health), each persona's cycles live, its sessions, ledger and proposals,
the review queue across the fleet, and the gate evidence of each proposal.

Options:
  --state-dir DIR   the state directory (default: $SCIDEX_AGENT_STATE_DIR, else ./state)
  --port N          the port (default 4780; 0: any free port)
  --host ADDR       the address to listen on (default 127.0.0.1; anything else is reachable
                    from other machines: say so on purpose). 0.0.0.0 or :: listen everywhere
  --allow-host NAME a host name browsers reach the console by (repeatable): every request's
                    Host must be the bound address, a loopback name, an IP address or one of
                    these, on the console's port, or it is refused (DNS rebinding)
  --operator        load your operator credential (runtimectl operator init) so decisions can
                    be made; a login URL with a one-time access token is printed: the first
                    browser that opens it within 15 minutes may accept or reject, for up to
                    12 hours (30 minutes idle) or until it logs out; a second browser with the
                    same URL is refused. A new URL is printed each time the last one was used
                    or expired
  --stale-after S   a persona whose last cycle is older than S seconds is "stopped" (default 3600)

Without --operator the console is read-only. Runs until SIGINT or SIGTERM.
`;

function port(value: string | undefined): number {
  if (value === undefined) return 4780;
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw kernelError('RTC_ERR_CLI_USAGE', `--port ${value}: a port number from 0 to 65535`);
  return Number(value);
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(
    argv,
    { 'state-dir': { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, 'allow-host': { type: 'string', multiple: true }, operator: { type: 'boolean' }, 'stale-after': { type: 'string' } },
    'serve',
    false,
  );
  const stateDir = resolveStateDir(values['state-dir'], io);
  const host = values.host ?? '127.0.0.1';
  if (!/^[A-Za-z0-9.:-]{1,255}$/.test(host)) throw kernelError('RTC_ERR_CLI_USAGE', `--host ${JSON.stringify(host)}: an address or host name`);
  const allowHosts = (values['allow-host'] ?? []).map((name) => {
    // A name as a browser sends it in Host: letters, digits, dots and dashes (an address needs no entry).
    if (!/^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i.test(name)) {
      throw kernelError('RTC_ERR_CLI_USAGE', `--allow-host ${JSON.stringify(name)}: a host name such as console.lab.example (no port, no scheme)`);
    }
    return name.toLowerCase().replace(/\.$/, '');
  });
  const stale = values['stale-after'];
  if (stale !== undefined && !/^[1-9]\d{0,8}$/.test(stale)) throw kernelError('RTC_ERR_CLI_USAGE', `--stale-after ${stale}: whole seconds above zero`);
  const decider = values.operator ? operatorDecider(io.env, stateDir) : undefined;
  const running = await startConsole({
    stateDir,
    host,
    port: port(values.port),
    allowHosts,
    ...(decider ? { decider } : {}),
    ...(stale ? { staleAfterMs: Number(stale) * 1000 } : {}),
    onLoginUrl: (url, why) => io.stdout(`the last login URL was ${why === 'used' ? 'used' : 'not used in time'}; log in again with: ${url}\n`),
  });
  io.stdout(`runtimectl console: ${running.url} (state ${stateDir}; ${decider ? `operator ${decider.operator}` : 'read-only: no operator credential'})\n`);
  if (running.loginUrl) io.stdout(`log in to decide (one browser, once, within 15 min; keep the URL to yourself): ${running.loginUrl}\n`);
  if (!isLoopback(host)) io.stderr(`runtimectl serve: listening on ${host}, reachable from other machines; every page is readable there without a login\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await running.close();
  return 0;
}

export const serveCommand: Command = { path: ['serve'], summary: "the operator's console in a browser: fleet, personas live, review queue, gate evidence", usage: USAGE, run };
