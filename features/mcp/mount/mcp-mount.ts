/**
 * A mounted MCP server: a tool plugin that declares `mcp: {command, args, env, pass_env}`
 * instead of code. The kernel starts the server on first use as a subprocess under the
 * plugin's grant (its manifest ∩ the persona's `allow` ∩ its profile's ceiling: the command
 * must be granted by `run`, each passed variable by `env`), with an environment of only what
 * is declared, lists its tools, and proxies each call. Every call is one effect on the
 * broker's tape (`mcp.call`: the tool and arguments asked, the server's answer), so a
 * recorded call replays from the record without starting the server, and the cycle's trace
 * holds what the server said.
 *
 * Limits are the plugin's (its profile's, tightened by its manifest): a call that gets no
 * answer within `wallMs` kills the server's process group (RTC_ERR_TOOL_MCP_TIMEOUT); a server
 * that exits, writes more than `outputBytes` without answering, or answers something that is
 * not MCP is killed and the call fails (RTC_ERR_TOOL_MCP_SERVER). The next call starts a
 * fresh server. Either way the agent reads a tool error and the kernel serves the next call.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Tape } from '../../../kernel/broker/tape.ts';
import { sha256 } from '../../../kernel/events/envelope.ts';
import { isKernelError, kernelError, type ErrorCode, type KernelError } from '../../../kernel/errors.ts';
import { expand } from '../../../kernel/manifest/permissions-schema.ts';
import { grantLayers } from '../../../kernel/broker/context.ts';
import type { Limits } from '../../../kernel/manifest/sandbox-profile.ts';
import type { McpServerDeclaration } from '../../../kernel/manifest/plugin-manifest.ts';
import { PermissionGate } from '../../../kernel/permissions/gate.ts';
import type { LoadedPlugin } from '../../../kernel/plugins/registry.ts';
import { chargedFor, reportCallUsage } from '../../plugin-host/call-usage.ts';
import { mountCode, type McpMountOptions, type MountedServer, type RemoteTool } from '../../persona/tools/runners.ts';
import { KERNEL_VERSION } from '../../../kernel/version.ts';
import { locateBwrap } from '../../../sandboxes/subprocess/os-sandbox/bwrap.ts';
import { grantView } from '../../../sandboxes/subprocess/os-sandbox/grant-view.ts';
import { gateNetPolicy } from '../../../sandboxes/subprocess/os-sandbox/net-proxy.ts';
import { resolveExecutable, type OsSandboxRequest } from '../../../sandboxes/subprocess/run-command.ts';
import { processCpuMs, ServerProcess, type ServerEnd } from './mcp-process.ts';

/** The tape op of one proxied call: args `{tool, arguments}`, answer `{ok: CallToolResult}` or `{err: {code?, message}}`. */
export const MCP_CALL_OP = 'mcp.call';

function serverError(plugin: string, message: string, details: Record<string, unknown> = {}): KernelError {
  return kernelError('RTC_ERR_TOOL_MCP_SERVER', `tool plugin ${plugin}: its MCP server ${message}`, { details: { plugin, ...details } });
}

export class McpMount implements MountedServer {
  readonly plugin: LoadedPlugin;
  readonly limits: Limits;
  /** what a recorder puts its tape on */
  readonly broker: { context: { tape?: Tape } } = { context: {} };
  readonly bundle: { code: string; digest: string };
  /** servers started so far (a restart after a crash adds one) */
  builds = 0;
  lastCall: { cpuMs: number; wallMs: number } = { cpuMs: 0, wallMs: 0 };
  /**
   * How the running server is contained: `bubblewrap`, or why not (`off: ...` when the profile
   * opts out, `unavailable: ...` when bwrap cannot run here); undefined before the first start.
   */
  osSandbox: string | undefined;
  readonly #options: McpMountOptions;
  readonly #gate: PermissionGate;
  #server: ServerProcess | undefined;
  #client: Client | undefined;
  #starting: Promise<Client> | undefined;
  #tools: RemoteTool[] | undefined;

  constructor(plugin: LoadedPlugin, options: McpMountOptions) {
    if (!plugin.manifest.mcp) throw new Error(`${plugin.manifest.id} mounts no MCP server`);
    this.plugin = plugin;
    this.#options = options;
    this.limits = { ...plugin.profile.limits, ...plugin.manifest.limits, ...definedOnly(options.limits ?? {}) };
    this.#gate = new PermissionGate(grantLayers({ subject: plugin.manifest.id, permissions: plugin.manifest.permissions, dir: plugin.dir, ...(options.vars ? { vars: options.vars } : {}), allow: options.allow, profile: plugin.profile }));
    const code = mountCode(plugin.manifest.mcp);
    this.bundle = { code, digest: sha256(code) };
  }

  get traceId(): string {
    return this.plugin.manifest.id;
  }

  /**
   * The OS sandbox the server starts in: bubblewrap, planned from the plugin's grant (read-only
   * root of system trees and the command's install, the grant's read and write trees, the
   * plugin's own folder read-only, the state root and the kernel's cache masked but the
   * persona's own folder, network only to granted hosts through the kernel's audited proxy).
   * Without bwrap, or with the profile's `os_sandbox: off`, the server runs as a plain child
   * (its environment, process group and limits as always) and `osSandbox` says why.
   */
  async #sandbox(): Promise<OsSandboxRequest | undefined> {
    const os = this.#options.os;
    if (!os) {
      this.osSandbox = 'unavailable: no OS sandbox settings were given';
      return undefined;
    }
    if (os.mode === 'off') {
      this.osSandbox = "off: the persona's profile opts out (os_sandbox: off)";
      return undefined;
    }
    try {
      await locateBwrap(os.hostEnv ?? process.env);
    } catch (error) {
      this.osSandbox = `unavailable: ${isKernelError(error) ? error.message : (error as Error).message}`;
      return undefined;
    }
    this.osSandbox = 'bubblewrap';
    const id = this.plugin.manifest.id;
    const audit = this.#options.audit;
    return {
      mode: 'bubblewrap',
      ...(os.hostEnv ? { hostEnv: os.hostEnv } : {}),
      grant: grantView(this.#gate),
      context: { hide: os.hide, ...(os.own ? { own: os.own } : {}), readOnly: [this.plugin.dir] },
      net: gateNetPolicy(
        (hostPort, aliases) => this.#gate.query('net', hostPort, aliases).state,
        (hostPort, granted) => audit?.({ type: 'capability', subject: id, op: 'run.net', permission: 'net', value: hostPort, decision: granted ? 'granted' : 'denied' }),
      ),
    };
  }

  /** The SDK's own request timeout: past the kernel's wall limit, so the kernel's (which kills the group) decides. */
  get #sdkTimeout(): number {
    return this.limits.wallMs + 1000;
  }

  get #mcp(): McpServerDeclaration {
    return this.plugin.manifest.mcp!;
  }

  #check(kind: 'run' | 'env', value: string, op: string, alternatives: string[] = []): void {
    const granted = this.#gate.query(kind, value).state === 'granted' || alternatives.some((alt) => this.#gate.query(kind, alt).state === 'granted');
    this.#options.audit?.({ type: 'capability', subject: this.plugin.manifest.id, op, permission: kind, value, decision: granted ? 'granted' : 'denied' });
    if (!granted) {
      const flag = kind === 'run' ? '--allow-run' : '--allow-env';
      throw kernelError('RTC_ERR_TOOL_DENIED', `NotCapable: tool plugin ${this.plugin.manifest.id}: its MCP server needs ${kind} access to "${value}" (run again with the ${flag} flag: the persona's allow or the plugin's manifest does not grant it)`, {
        details: { plugin: this.plugin.manifest.id, permission: kind, value },
      });
    }
  }

  /** The server's environment: the declared values and the passed variables the grant allows, nothing else. */
  #environment(): Record<string, string> {
    const vars = { plugin: this.plugin.dir, ...this.#options.vars };
    const env: Record<string, string> = {};
    for (const name of this.#mcp.pass_env) {
      this.#check('env', name, 'mcp.start');
      const value = this.#options.env[name];
      if (value !== undefined) env[name] = value;
    }
    for (const [name, value] of Object.entries(this.#mcp.env)) env[name] = expand(value, vars) ?? value;
    return env;
  }

  #start(): Promise<Client> {
    if (this.#client && this.#server && !this.#server.ended) return Promise.resolve(this.#client);
    this.#starting ??= this.#launch().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #launch(): Promise<Client> {
    const vars = { plugin: this.plugin.dir, ...this.#options.vars };
    const command = expand(this.#mcp.command, vars) ?? this.#mcp.command;
    const executable = command.includes('/') ? path.resolve(this.plugin.dir, command) : resolveExecutable(command, this.#options.env.PATH ?? '', this.#options.cwd);
    this.#check('run', command, 'mcp.start', executable && executable !== command ? [executable] : []);
    if (!executable) throw serverError(this.plugin.manifest.id, `could not be started: "${command}" is not found on the persona's PATH`);
    const sandbox = await this.#sandbox();
    let server: ServerProcess;
    try {
      server = new ServerProcess({
        executable,
        command,
        args: this.#mcp.args.map((a) => expand(a, vars) ?? a),
        cwd: this.#options.cwd,
        env: this.#environment(),
        outputBytes: this.limits.outputBytes,
        ...(sandbox ? { sandbox } : {}),
      });
    } catch (error) {
      // a grant the sandbox cannot express (RTC_ERR_OSBOX_GRANT), or no sandbox could be built
      throw serverError(this.plugin.manifest.id, `could not be started in the OS sandbox: ${isKernelError(error) ? error.toBareLine() : (error as Error).message}`);
    }
    this.builds++;
    this.#server = server;
    this.#tools = undefined;
    const client = new Client({ name: 'runtimectl', version: KERNEL_VERSION }, { capabilities: {} });
    try {
      await this.#bounded(server, client.connect(server, { timeout: this.#sdkTimeout }), 'did not answer initialize');
    } catch (error) {
      server.kill();
      throw error;
    }
    this.#client = client;
    return client;
  }

  /** `work`, failing as soon as the server is gone or the wall limit passes (which kills it). */
  async #bounded<T>(server: ServerProcess, work: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    let onEnd: ((end: ServerEnd) => void) | undefined;
    const ended = new Promise<never>((_resolve, reject) => {
      onEnd = (end) => reject(serverError(this.plugin.manifest.id, end.message, { reason: end.reason }));
      if (server.ended) onEnd(server.ended);
      else server.onend = onEnd;
      timer = setTimeout(() => {
        // the timeout is the call's error (settled first); the kill then ends the server for every other call in flight
        reject(kernelError('RTC_ERR_TOOL_MCP_TIMEOUT', `tool plugin ${this.plugin.manifest.id}: its MCP server ${what} within its wall time limit of ${this.limits.wallMs} ms; its process group was killed`, { details: { plugin: this.plugin.manifest.id } }));
        server.kill({ reason: 'killed', message: `${what} within its wall time limit of ${this.limits.wallMs} ms; its process group was killed` });
      }, this.limits.wallMs);
    });
    ended.catch(() => undefined);
    work.catch(() => undefined);
    try {
      return await Promise.race([work, ended]);
    } catch (error) {
      if (isKernelError(error)) throw error;
      if (server.ended) throw serverError(this.plugin.manifest.id, server.ended.message, { reason: server.ended.reason });
      throw serverError(this.plugin.manifest.id, `failed: ${(error as Error).message.split('\n')[0]}`);
    } finally {
      clearTimeout(timer);
      if (server.onend === onEnd) server.onend = undefined;
    }
  }

  /** The server's tools (started and listed on first need, listed again after a restart). */
  async tools(): Promise<RemoteTool[]> {
    const client = await this.#start();
    if (this.#tools) return this.#tools;
    const server = this.#server!;
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const listed = await this.#bounded(server, client.listTools(cursor ? { cursor } : undefined, { timeout: this.#sdkTimeout }), 'did not answer tools/list');
      tools.push(...listed.tools);
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
    this.#tools = tools.map((t) => ({ name: t.name, description: t.description ?? t.title ?? t.name, input_schema: t.inputSchema as Record<string, unknown> }));
    return this.#tools;
  }

  /**
   * Calls the server's tool `name` with `args`; returns its CallToolResult. With a replay
   * tape on the broker the recorded answer is returned and no server is started.
   */
  async call(name: string, ...rest: unknown[]): Promise<unknown> {
    const args = (rest[0] ?? {}) as Record<string, unknown>;
    const asked = JSON.stringify({ tool: name, arguments: args });
    const tape = this.broker.context.tape;
    if (tape?.mode === 'replay') return answerOf(tape.answer(MCP_CALL_OP, asked));
    const fill = tape?.begin(MCP_CALL_OP, asked);
    const started = performance.now();
    let cpuBefore: number | undefined;
    let pid: number | undefined;
    let ended: string | undefined;
    try {
      const client = await this.#start();
      const server = this.#server!;
      pid = server.pid;
      cpuBefore = processCpuMs(pid);
      const result = (await this.#bounded(server, client.callTool({ name, arguments: args }, undefined, { timeout: this.#sdkTimeout }), `did not answer tools/call ${name}`)) as CallToolResult;
      fill?.(JSON.stringify({ ok: result }));
      return result;
    } catch (error) {
      if (isKernelError(error)) ended = error.code;
      fill?.(JSON.stringify({ err: recordedError(error) }));
      throw error;
    } finally {
      const wallMs = performance.now() - started;
      const cpuAfter = processCpuMs(pid);
      // a server killed mid-call took its CPU figures with it: its wall time is charged instead
      this.lastCall = chargedFor({ cpuMs: cpuBefore !== undefined && cpuAfter !== undefined ? Math.max(0, cpuAfter - cpuBefore) : wallMs, wallMs }, ended, this.limits);
      reportCallUsage(this.lastCall);
    }
  }

  /** True while a server process is running. */
  get resident(): boolean {
    return this.#server !== undefined && !this.#server.ended;
  }

  dispose(): void {
    this.#server?.kill();
    this.#server = undefined;
    this.#client = undefined;
  }
}

/** A failed call as the tape keeps it: the kernel's code as data beside the message. */
interface RecordedError {
  code?: ErrorCode;
  message: string;
}

function recordedError(error: unknown): RecordedError {
  return isKernelError(error) ? { code: error.code, message: error.message } : { message: (error as Error).message };
}

/** A recorded answer back into a value, or the recorded error thrown again (with its code). */
function answerOf(answer: string): unknown {
  const parsed = JSON.parse(answer) as { ok?: unknown; err?: RecordedError | string };
  if ('ok' in parsed) return parsed.ok;
  const err = parsed.err ?? { message: 'error' };
  // a tape recorded before the code was data kept one line: its text is thrown back as it is
  if (typeof err === 'string') throw new Error(err);
  throw err.code ? kernelError(err.code, err.message) : new Error(err.message);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
