/**
 * `mcp serve`'s first moments, before the rest of the CLI loads (cli/main.ts imports this
 * first; it imports only the MCP server, the relay pointer and the plan's reader):
 *
 *  - a kernel serves the persona's tools now (RUNTIMECTL_TOOLS_SOCKET, or the pointer a `run`
 *    on this machine wrote, when its process runs and its socket answers): stdio is piped to
 *    it (bridge.mjs), as the full command would, without loading the CLI;
 *  - else the persona's tool plan (tool-plan.ts), when the last `mcp serve` of the same
 *    invocation left one and nothing it was made from changed: `initialize` and `tools/list`
 *    are answered from it; the persona is opened (the full start check, the writer lock) when
 *    the first tool is called, or once the client has stayed a moment after listing. A client
 *    that lists and leaves never waits for the kernel. Once open, the kernel's list is what is
 *    served; if it differs from the plan, the client is told
 *    (`notifications/tools/list_changed`) and the plan rewritten. If the start fails, the
 *    error is the one line `mcp serve` prints without a plan, with the same status, and the
 *    server ends: a refusal is never hidden behind a list that was served;
 *  - else nothing here: the full command runs (its flags checked, the profile read and
 *    validated, the persona opened before the first answer).
 *
 * Which persona is found from the profile's `id:` line before the profile is validated: a
 * kernel running that id validated its own profile at its start, and the plan names the file
 * and id it was written for.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseFlags, type CliIo } from '../command/command.ts';
import { PERSONA_ID_PATTERN } from '../../kernel/ids.ts';
import { chooseStateDir } from '../persistence/state/state-dir.ts';
import { looksLikeFile, PERSONAS_DIR } from '../profiles/persona-ref.ts';
import { liveRelay, runningRelay, TOOLS_SOCKET_ENV } from '../persona/tools/relay-pointer.ts';
import type { ToolSource } from '../persona/tools/mcp-server.ts';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { invocationKey, readToolPlan, sameReport, SOURCE_FLAGS, type ServeValues, type ToolPlan, type ToolReport } from './tool-plan.ts';

/** How long a client that listed may stay before the persona is opened for its calls. */
export const OPEN_AFTER_LIST_MS = 250;

export interface EarlyServeDeps {
  /** opens the persona's tools as `mcp serve` does without a plan, recording later listings against `known` */
  open(values: ServeValues & { persona: string }, io: CliIo, known: ToolReport): Promise<ToolSource>;
  /** prints an error as the CLI prints any command's, and gives its exit status */
  report(error: unknown): number;
  /** the transport (stdio by default; a test hands a pair) */
  transport?: Transport;
}

/**
 * The persona's id as its profile file says it: the one top-level `id:` line (a key at column
 * 0 of a block mapping is the top-level key; anything else, a flow mapping or two such lines,
 * gives no id and the full start runs). An id ref must name a profile in the personas folder,
 * as the full start requires. The plan path checks the id again against the plan.
 */
function personaIdOf(ref: string, cwd: string): string | undefined {
  if (!looksLikeFile(ref)) return PERSONA_ID_PATTERN.test(ref) && existsSync(path.join(PERSONAS_DIR, `${ref}.yaml`)) ? ref : undefined;
  let text: string;
  try {
    text = readFileSync(path.resolve(cwd, ref), 'utf8');
  } catch {
    return undefined;
  }
  const ids = [...text.matchAll(/^id:[ \t]*(["']?)([a-z0-9][a-z0-9_-]*)\1[ \t]*(?:#.*)?$/gm)].map((m) => m[2]!);
  return ids.length === 1 ? ids[0] : undefined;
}

/** `mcp serve`'s flags when they parse and name a persona; undefined leaves the full command to say what is wrong. */
function serveFlags(argv: readonly string[]): (ServeValues & { persona: string }) | undefined {
  if (argv.some((a) => a === '--help' || a === '-h')) return undefined;
  try {
    const { values } = parseFlags([...argv], SOURCE_FLAGS, 'mcp serve', false);
    return values.persona === undefined ? undefined : { ...values, persona: values.persona };
  } catch {
    return undefined;
  }
}

/** Pipes this process's stdio to the kernel's socket (bridge.mjs), which ends the process when either side closes. */
async function bridgeTo(socket: string): Promise<never> {
  process.env[TOOLS_SOCKET_ENV] = socket;
  await import('./bridge.mjs');
  return new Promise<never>(() => undefined);
}

/**
 * Answers early when it can, and returns the exit status: bridged to the kernel running the
 * persona (RUNTIMECTL_TOOLS_SOCKET, or the pointer of a `run` on this machine that answers),
 * or served from the plan. Undefined when neither applies (no plan yet, another invocation, a
 * file changed, a kernel that does not answer): the caller runs `mcp serve` in full.
 */
export async function serveEarly(argv: readonly string[], io: CliIo, deps: EarlyServeDeps): Promise<number | undefined> {
  const values = serveFlags(argv);
  if (values === undefined) return undefined;
  const given = io.env[TOOLS_SOCKET_ENV];
  // given explicitly: the bridge says in one line when it cannot be reached
  if (given) return bridgeTo(given);
  const id = personaIdOf(values.persona, io.cwd);
  if (id === undefined) return undefined;
  const personaDir = path.join(chooseStateDir(values['state-dir'], io.env, io.cwd).stateDir, id);
  const socket = await liveRelay(personaDir);
  if (socket !== undefined) return bridgeTo(socket);
  // a kernel that runs the persona but does not answer: the full start says so
  if (runningRelay(personaDir) !== undefined) return undefined;
  const plan = readToolPlan(personaDir, invocationKey(values, io));
  if (plan === undefined || plan.persona.id !== id) return undefined;
  if (looksLikeFile(values.persona) && plan.persona.file !== path.resolve(io.cwd, values.persona)) return undefined;
  // the MCP server only now: a bridged serve never loads it
  const [{ serveTools }, { StdioUntilEnd }] = await Promise.all([import('../persona/tools/mcp-server.ts'), import('./stdio-until-end.ts')]);
  const transport = deps.transport ?? new StdioUntilEnd();
  let status = 0;
  const source = new PlannedSource(plan.report, () => deps.open(values, io, plan.report), (error) => {
    status = deps.report(error);
    void transport.close();
  });
  await serveTools({ source, log: (line) => io.stderr(`runtimectl mcp serve: ${line}\n`) }, transport);
  return status;
}

/** The plan's list until the persona is open, then the kernel's; calls wait for the open. */
class PlannedSource implements ToolSource {
  readonly #planned: ToolReport;
  readonly #open: () => Promise<ToolSource>;
  readonly #failed: (error: unknown) => void;
  #opening: Promise<ToolSource> | undefined;
  #real: ToolSource | undefined;
  #timer: NodeJS.Timeout | undefined;
  #changed: (() => void) | undefined;
  #closed = false;

  constructor(planned: ToolReport, open: () => Promise<ToolSource>, failed: (error: unknown) => void) {
    this.#planned = planned;
    this.#open = open;
    this.#failed = failed;
  }

  watch(changed: () => void): void {
    this.#changed = changed;
  }

  async list(): Promise<ToolReport> {
    if (this.#real) return this.#real.list();
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#start().catch(() => undefined), OPEN_AFTER_LIST_MS);
    return this.#planned;
  }

  async call(name: string, args: unknown, via?: unknown): Promise<unknown> {
    return (await this.#start()).call(name, args, via);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    const real = await this.#opening?.catch(() => undefined);
    await real?.close();
  }

  #start(): Promise<ToolSource> {
    clearTimeout(this.#timer);
    this.#opening ??= (async () => {
      let real: ToolSource;
      try {
        real = await this.#open();
      } catch (error) {
        this.#failed(error);
        throw error;
      }
      if (this.#closed) return real;
      try {
        // the kernel's own list (which records the plan anew when it changed): the client is told if it is not what it was served
        if (!sameReport(await real.list(), this.#planned)) this.#changed?.();
      } catch {
        // the next tools/list asks the kernel again, and says what went wrong there
        this.#changed?.();
      }
      this.#real = real;
      return real;
    })();
    return this.#opening;
  }
}
