/**
 * The subprocess runner behind `run` grants: the child gets only the environment it was
 * handed (no inheritance from the kernel), runs in its own process group, and the whole
 * group is killed when it passes its wall limit or its output cap.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

export interface CommandRequest {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** PATH used to find a bare command name (the sandboxed code's own PATH) */
  searchPath: string;
  input: Buffer | null;
  wallMs: number;
  outputBytes: number;
  /** aborted when the run that asked for the command ends: the group is killed */
  signal?: AbortSignal;
}

export interface CommandResult {
  code: number;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
  /** why the runner killed the group, if it did */
  killed: 'timeout' | 'output' | 'aborted' | null;
}

/** Finds a bare command on `searchPath`; paths with a slash are used as given. */
export function resolveExecutable(command: string, searchPath: string, cwd: string): string | undefined {
  if (command.includes('/')) return path.resolve(cwd, command);
  for (const dir of searchPath.split(':').filter(Boolean)) {
    const candidate = path.join(dir, command);
    try {
      if (statSync(candidate).isFile()) {
        accessSync(candidate, constants.X_OK);
        return candidate;
      }
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

export function runCommand(req: CommandRequest): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const executable = resolveExecutable(req.command, req.searchPath, req.cwd);
    if (!executable) {
      const error = Object.assign(new Error(`Failed to spawn '${req.command}': No such file or directory (os error 2)`), { code: 'ENOENT' });
      reject(error);
      return;
    }
    const child = spawn(executable, [...req.args], {
      cwd: req.cwd,
      env: req.env,
      argv0: req.command,
      detached: true,
      stdio: [req.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let total = 0;
    let killed: CommandResult['killed'] = null;
    const killGroup = (why: 'timeout' | 'output' | 'aborted'): void => {
      killed ??= why;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is already gone
      }
    };
    const timer = setTimeout(() => killGroup('timeout'), req.wallMs);
    const onAbort = () => killGroup('aborted');
    if (req.signal?.aborted) onAbort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    const collect = (sink: Buffer[]) => (chunk: Buffer) => {
      total += chunk.length;
      if (total > req.outputBytes) {
        killGroup('output');
        return;
      }
      sink.push(chunk);
    };
    child.stdout?.on('data', collect(out));
    child.stderr?.on('data', collect(err));
    child.on('error', (error) => {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      // Children that outlived the leader are still in the group: end them too.
      if (child.pid) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // nothing left
        }
      }
      resolve({ code: code ?? 128 + (signal === 'SIGKILL' ? 9 : 15), signal: signal ?? null, stdout: Buffer.concat(out), stderr: Buffer.concat(err), killed });
    });
    if (req.input && child.stdin) {
      child.stdin.on('error', () => undefined);
      child.stdin.end(req.input);
    }
  });
}
