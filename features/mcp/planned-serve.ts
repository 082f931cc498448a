/**
 * `mcp serve` from the persona's tool plan (tool-plan.ts): when the last `mcp serve` of the same
 * invocation left a plan and nothing it was made from changed, `initialize` and `tools/list`
 * are answered from it, before the kernel is loaded; the persona is opened (the full start
 * check, the writer lock) when the first tool is called, or once the client has stayed a
 * moment after listing. A client that lists and leaves never waits for the kernel.
 *
 * Once open, the kernel's list is what is served; if it differs from the plan, the client is
 * told (`notifications/tools/list_changed`) and the plan rewritten. If the start fails, the
 * error is the one line `mcp serve` prints without a plan, with the same status, and the
 * server ends: a refusal is never hidden behind a list that was served.
 *
 * This module is loaded before anything else of the CLI (cli/main.ts), so it imports only what
 * the plan needs: the MCP server and the plan's reader. The start itself is handed in.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseFlags, type CliIo } from '../command/command.ts';
import { PERSONA_ID_PATTERN } from '../../kernel/ids.ts';
import { chooseStateDir } from '../persistence/state/state-dir.ts';
import { looksLikeFile } from '../profiles/persona-ref.ts';
import { RELAY_POINTER_FILE, TOOLS_SOCKET_ENV } from '../persona/tools/relay-names.ts';
import { serveTools, type ToolSource } from '../persona/tools/mcp-server.ts';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { StdioUntilEnd } from './stdio-until-end.ts';
import { invocationKey, readToolPlan, sameReport, SOURCE_FLAGS, type ServeValues, type ToolPlan, type ToolReport } from './tool-plan.ts';

/** How long a client that listed may stay before the persona is opened for its calls. */
export const OPEN_AFTER_LIST_MS = 250;

export interface PlannedServeDeps {
  /** opens the persona's tools as `mcp serve` does without a plan, recording later listings against `known` */
  open(values: ServeValues, io: CliIo, known: ToolReport): Promise<ToolSource>;
  /** prints an error as the CLI prints any command's, and gives its exit status */
  report(error: unknown): number;
  /** the transport (stdio by default; a test hands a pair) */
  transport?: Transport;
}

/**
 * The persona's id as its profile file says it: a guess from the `id:` line, checked by the
 * plan (which names the file and the id it was written for), so a guess that is wrong only
 * misses the plan.
 */
function personaIdOf(ref: string, cwd: string): string | undefined {
  if (!looksLikeFile(ref)) return PERSONA_ID_PATTERN.test(ref) ? ref : undefined;
  let text: string;
  try {
    text = readFileSync(path.resolve(cwd, ref), 'utf8');
  } catch {
    return undefined;
  }
  const ids = [...text.matchAll(/^id:[ \t]*(["']?)([a-z0-9][a-z0-9_-]*)\1[ \t]*(?:#.*)?$/gm)].map((m) => m[2]!);
  return ids.length === 1 ? ids[0] : undefined;
}

/** The plan this command line may start from, and where; undefined when the full start must run. */
function findPlan(argv: readonly string[], io: CliIo): { values: ServeValues; plan: ToolPlan } | undefined {
  if (argv.some((a) => a === '--help' || a === '-h') || io.env[TOOLS_SOCKET_ENV]) return undefined;
  let values: ServeValues;
  try {
    ({ values } = parseFlags([...argv], SOURCE_FLAGS, 'mcp serve', false));
  } catch {
    return undefined; // the full start says what is wrong with the flags
  }
  if (values.persona === undefined) return undefined;
  const id = personaIdOf(values.persona, io.cwd);
  if (id === undefined) return undefined;
  const personaDir = path.join(chooseStateDir(values['state-dir'], io.env, io.cwd).stateDir, id);
  // A kernel may be running the persona: the full start checks its pointer and bridges to it.
  if (existsSync(path.join(personaDir, RELAY_POINTER_FILE))) return undefined;
  const plan = readToolPlan(personaDir, invocationKey(values, io));
  if (plan === undefined || plan.persona.id !== id) return undefined;
  if (looksLikeFile(values.persona) && plan.persona.file !== path.resolve(io.cwd, values.persona)) return undefined;
  return { values, plan };
}

/**
 * Serves from the plan when one applies, and returns the exit status; undefined when none
 * does (no plan yet, another invocation, a file changed, a kernel running the persona): the
 * caller runs `mcp serve` in full.
 */
export async function servePlanned(argv: readonly string[], io: CliIo, deps: PlannedServeDeps): Promise<number | undefined> {
  const found = findPlan(argv, io);
  if (found === undefined) return undefined;
  const transport = deps.transport ?? new StdioUntilEnd();
  let status = 0;
  const source = new PlannedSource(found.plan.report, () => deps.open(found.values, io, found.plan.report), (error) => {
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
