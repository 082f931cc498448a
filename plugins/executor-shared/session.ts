/**
 * One executor session on disk, `brain/sessions/<run-id>/`:
 *
 *   prompt.md        what the executor was asked
 *   stdout.txt       what it printed (raw)
 *   stderr.txt
 *   last-message.md  its final reply, parsed from the output
 *   manifest.json    run id, command, status, exit code, parsed usage, budget decision
 *
 * Every write goes through Deno.writeTextFile under the plugin's `${session}` grant (this
 * session's folder only), and the command through Deno.Command under its `run` grant: the
 * broker sees and audits each one, and the command runs inside the OS sandbox built from the
 * same grant, where it may write this folder. So what the command left where the session's
 * files go (a link to a file of the host's, a folder, a hard link) is removed as an entry
 * first and named in the manifest (`replaced`); each file is then created new (O_EXCL, never
 * through a link), and the broker follows no link out of the grant either way. The prompt goes to
 * the command on stdin (never argv, which every user sees in `ps`); the manifest records its
 * digest. A failure to start, a non-zero exit or a wall-limit kill is a session with a status
 * and a reason (the harness's own words where it printed any), never a thrown error, so the
 * cycle can record it and carry on.
 */
import type { ExecutorSessionManifestInput } from './model/session-manifest.ts';
import type { ExecutorInput, ExecutorResult, ExecutorStatus, Usage } from './contract.ts';
import { deno, errorMessage, errorName } from './globals.ts';
import type { Parsed } from './usage.ts';

export const SESSION_FILES = { prompt: 'prompt.md', stdout: 'stdout.txt', stderr: 'stderr.txt', lastMessage: 'last-message.md', manifest: 'manifest.json' } as const;

export interface SessionRecord {
  plugin: string;
  command: string | null;
  args: string[];
  /** how the prompt reached the command: `stdin`, or none for a session that ran no command */
  prompt_via?: 'stdin' | null;
  status: ExecutorStatus;
  reason?: string;
  exit_code?: number | null;
  usage: Usage | null;
  stdout: string;
  stderr: string;
  lastMessage: string;
  extra?: Record<string, unknown>;
}

function join(dir: string, name: string): string {
  return `${dir.replace(/\/+$/, '')}/${name}`;
}

export async function writePrompt(input: ExecutorInput): Promise<void> {
  await deno.mkdir(input.paths.session_dir, { recursive: true });
  await deno.writeTextFile(join(input.paths.session_dir, SESSION_FILES.prompt), input.prompt);
}

/**
 * Clears `name` in the session folder for a fresh file: anything but a plain file with one
 * link (what the session's command may have planted there) is removed as an entry, never
 * followed. Returns what was removed, for the manifest.
 */
async function clearEntry(dir: string, name: string): Promise<string | undefined> {
  const file = join(dir, name);
  let info;
  try {
    info = await deno.lstat(file);
  } catch {
    return undefined;
  }
  if (info.isFile && (info.nlink ?? 1) <= 1) {
    await deno.remove(file);
    return undefined;
  }
  const kind = info.isSymlink ? 'a symbolic link' : info.isDirectory ? 'a folder' : info.isFile ? 'a hard link' : 'a special file';
  await deno.remove(file, { recursive: info.isDirectory });
  return `${name} (${kind} stood there)`;
}

/** Writes one session file new (O_EXCL: never through whatever stood there); notes what was cleared. */
async function writeFresh(dir: string, name: string, text: string, replaced: string[]): Promise<void> {
  const cleared = await clearEntry(dir, name);
  if (cleared) replaced.push(cleared);
  await deno.writeTextFile(join(dir, name), text, { createNew: true });
}

/** Writes the output files and the manifest; returns the file names written. */
export async function writeSession(input: ExecutorInput, record: SessionRecord): Promise<string[]> {
  const dir = input.paths.session_dir;
  const replaced: string[] = [];
  await writeFresh(dir, SESSION_FILES.stdout, record.stdout, replaced);
  await writeFresh(dir, SESSION_FILES.stderr, record.stderr, replaced);
  await writeFresh(dir, SESSION_FILES.lastMessage, record.lastMessage === '' ? '' : `${record.lastMessage.trimEnd()}\n`, replaced);
  const files = Object.values(SESSION_FILES);
  const cleared = await clearEntry(dir, SESSION_FILES.manifest);
  if (cleared) replaced.push(cleared);
  const manifest: ExecutorSessionManifestInput = {
    format: 'runtimectl.executor-session/1',
    run_id: input.run_id,
    persona_id: input.persona_id,
    runtime: input.runtime,
    phase: input.phase,
    executor: record.plugin,
    command: record.command,
    args: record.args,
    prompt_via: record.prompt_via ?? null,
    prompt_sha256: input.prompt_sha256,
    cwd: 'brain/workspace (the persona workspace)',
    provider_home: 'brain/providers (HOME of the session)',
    os_sandbox: input.sandbox,
    status: record.status,
    reason: record.reason ?? null,
    exit_code: record.exit_code ?? null,
    usage: record.usage,
    limits: input.limits,
    work: input.work.map((w) => ({ kind: w.kind, key: w.key, title: w.title })),
    budget_decision: input.decision,
    files,
    ...(replaced.length > 0 ? { replaced } : {}),
    ...(record.extra ? { extra: record.extra } : {}),
  };
  await deno.writeTextFile(join(dir, SESSION_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`, { createNew: true });
  return files;
}

export interface CliSpec {
  plugin: string;
  command: string;
  args: string[];
  /** variables for the command besides the ones the persona passes (CODEX_HOME, ...) */
  env?: Record<string, string>;
  /** false: the command gets nothing on stdin (a harness that is not asked anything) */
  promptOnStdin?: boolean;
  parse: (stdout: string, stderr: string) => Parsed;
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return (lines[lines.length - 1] ?? '').slice(0, 300);
}

/**
 * Whether the session can reach its provider: one of `hosts` (host or host:port) is granted
 * to this plugin, whose grant is its subprocess's. An empty list says none is needed.
 */
export function providerReachable(hosts: readonly string[]): boolean {
  if (hosts.length === 0) return true;
  return hosts.some((host) => {
    try {
      return deno.permissions.querySync({ name: 'net', host }).state === 'granted';
    } catch {
      return false;
    }
  });
}

/** Whether the sandbox lets the session reach hosts beyond its provider's (the harness's own web and network tools). */
export function toolsNetwork(net: true | string[], providerHosts: readonly string[]): boolean {
  if (net === true) return true;
  const bare = (h: string) => h.replace(/:\d+$/, '');
  const provider = new Set(providerHosts.map(bare));
  return net.some((h) => !provider.has(bare(h)));
}

/** `config.provider_hosts` when the profile sets it (`[]`: none needed), else the executor's defaults. */
export function providerHosts(config: Record<string, unknown>, defaults: readonly string[]): string[] {
  return Array.isArray(config.provider_hosts) ? config.provider_hosts.filter((h): h is string => typeof h === 'string') : [...defaults];
}

/**
 * A provider CLI's session (codex, claude): refused at once when none of its provider hosts is
 * granted (it would wait for a network it never gets until the wall limit), else run.
 */
export function runProviderCli(input: ExecutorInput, spec: CliSpec & { name: string; hosts: readonly string[] }): Promise<ExecutorResult> {
  const { name, hosts, ...cli } = spec;
  if (!providerReachable(hosts)) {
    return refuseSession(input, cli, `${name}: not started: none of its provider hosts (${hosts.join(', ')}) is granted to this persona (allow.net); grant the one it uses, or set executor.config.provider_hosts`);
  }
  return runCli(input, cli);
}

/** A session that was not started: its files say why. */
export async function refuseSession(input: ExecutorInput, spec: Pick<CliSpec, 'plugin' | 'command' | 'args'>, reason: string): Promise<ExecutorResult> {
  await writePrompt(input);
  const files = await writeSession(input, { plugin: spec.plugin, command: spec.command, args: spec.args, status: 'failed', reason, usage: null, stdout: '', stderr: '', lastMessage: '' });
  return { status: 'failed', reason, exit_code: null, usage: null, files, work_done: [] };
}

/** Runs a CLI session end to end: prompt, command, output, usage, manifest. */
export async function runCli(input: ExecutorInput, spec: CliSpec): Promise<ExecutorResult> {
  await writePrompt(input);
  const onStdin = spec.promptOnStdin !== false;
  const base = { plugin: spec.plugin, command: spec.command, args: spec.args, prompt_via: onStdin ? ('stdin' as const) : null };
  let output;
  try {
    output = await new deno.Command(spec.command, {
      args: spec.args,
      cwd: input.paths.workspace_dir,
      ...(spec.env ? { env: spec.env } : {}),
      ...(onStdin ? { input: input.prompt } : {}),
      stdout: 'piped',
      stderr: 'piped',
    }).output();
  } catch (error) {
    const name = errorName(error);
    const status: ExecutorStatus = name === 'NotFound' ? 'not_found' : name === 'TimedOut' ? 'timed_out' : 'failed';
    const reason =
      status === 'not_found'
        ? `${spec.command}: executable not found on PATH`
        : status === 'timed_out'
          ? `${spec.command}: passed the wall limit of ${input.limits.wall_seconds} s; its process group was killed`
          : `${spec.command}: ${name}: ${errorMessage(error)}`;
    const files = await writeSession(input, { ...base, status, reason, usage: null, stdout: '', stderr: '', lastMessage: '' });
    return { status, reason, exit_code: null, usage: null, files, work_done: [] };
  }
  const decoder = new TextDecoder();
  const stdout = decoder.decode(output.stdout);
  const stderr = decoder.decode(output.stderr);
  const parsed = spec.parse(stdout, stderr);
  const ok = output.code === 0 && parsed.error === undefined;
  const status: ExecutorStatus = ok ? 'ok' : 'failed';
  // Why it failed, in the harness's own words: its result or error message, else its last stderr line.
  const said = parsed.error !== undefined ? parsed.error.replace(/\s+/g, ' ').trim().slice(0, 300) : lastLine(stderr);
  const reason = ok
    ? undefined
    : output.code !== 0
      ? `${spec.command} exited with status ${output.code}${said ? `: ${said}` : ''}`
      : `${spec.command} reported an error: ${said}`;
  const files = await writeSession(input, { ...base, status, ...(reason ? { reason } : {}), exit_code: output.code, usage: parsed.usage, stdout, stderr, lastMessage: parsed.lastMessage });
  return {
    status,
    ...(reason ? { reason } : {}),
    exit_code: output.code,
    usage: parsed.usage,
    files,
    last_message: parsed.lastMessage.slice(0, 2000),
    work_done: ok ? input.work.map((w) => w.key) : [],
  };
}
