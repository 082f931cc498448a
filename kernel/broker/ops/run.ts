/** `new Deno.Command(...).output()`: checked against `run`, executed by the subprocess runner. */
import { resolveExecutable, runCommand } from '../../../sandboxes/subprocess/run-command.ts';
import { DenoOpError } from '../deno-error.ts';
import { defineOp, type BrokerContext } from '../op.ts';
import { bool, optStr, record, resolvePath, str } from './args.ts';

// Variables that change what a binary loads: Deno asks for full --allow-run to pass them.
const LOADER_VARIABLES = /^(LD_|DYLD_)/;

/**
 * The environment a child gets, after the loader rule: a loader variable with a value needs
 * the whole `run` kind, with nothing denied. The child inherits the sandbox's own
 * environment (only what the run was given, never the kernel's), plus what the script
 * passes, unless it clears it: Deno's rule. Shared by output() and spawn() (run-spawn.ts).
 */
export function childEnvironment(a: { env: Record<string, string>; clearEnv: boolean }, ctx: BrokerContext): Record<string, string> {
  const loader = Object.keys(a.env).find((k) => LOADER_VARIABLES.test(k) && a.env[k] !== '');
  const whole = ctx.gate.query('run');
  if (loader && (whole.state !== 'granted' || whole.partial)) {
    throw new DenoOpError('NotCapable', `Requires --allow-run permissions to spawn subprocess with ${loader} environment variable. Alternatively, spawn with the environment variable unset.`);
  }
  return a.clearEnv ? { ...a.env } : { ...ctx.env, ...a.env };
}

export const runOutput = defineOp({
  name: 'run.output',
  mode: 'async',
  parse(raw, ctx) {
    const o = record(raw);
    const args = o.args;
    if (!Array.isArray(args) || args.some((a) => typeof a !== 'string')) throw new DenoOpError('TypeError', 'args must be an array of strings');
    const env = record(o.env ?? {});
    for (const [k, v] of Object.entries(env)) if (typeof v !== 'string') throw new DenoOpError('TypeError', `env.${k} must be a string`);
    const cwd = optStr(o, 'cwd');
    const input = optStr(o, 'input');
    return {
      command: str(o, 'command'),
      args: args as string[],
      cwd: cwd === null ? ctx.cwd : resolvePath(ctx.cwd, cwd),
      env: env as Record<string, string>,
      clearEnv: bool(o, 'clearEnv'),
      input: input === null ? null : Buffer.from(input, 'base64'),
      stdout: o.stdout,
      stderr: o.stderr,
    };
  },
  needs: (a, ctx) => {
    const resolved = a.command.includes('/') ? undefined : resolveExecutable(a.command, a.env.PATH ?? ctx.env.PATH ?? '', a.cwd);
    return [{ kind: 'run', value: a.command, ...(resolved ? { alternatives: [resolved] } : {}) }];
  },
  async run(a, ctx) {
    const env = childEnvironment(a, ctx);
    let result;
    try {
      result = await runCommand({
        command: a.command,
        args: a.args,
        cwd: a.cwd,
        env,
        searchPath: env.PATH ?? ctx.env.PATH ?? '',
        input: a.input,
        wallMs: ctx.subprocess.wallMs,
        outputBytes: ctx.subprocess.outputBytes,
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new DenoOpError('NotFound', `Failed to spawn '${a.command}': entity not found`);
      if (code === 'EACCES') throw new DenoOpError('PermissionDenied', `Failed to spawn '${a.command}': Permission denied (os error 13)`);
      throw new DenoOpError('Error', `Failed to spawn '${a.command}': ${(error as Error).message}`);
    }
    if (result.killed === 'timeout') throw new DenoOpError('TimedOut', `command "${a.command}" passed its wall time limit of ${ctx.subprocess.wallMs} ms; its process group was killed`);
    if (result.killed === 'output') throw new DenoOpError('Interrupted', `command "${a.command}" passed its output cap of ${ctx.subprocess.outputBytes} bytes; its process group was killed`);
    const keep = (mode: unknown, data: Buffer) => (mode === 'null' || mode === 'inherit' ? '' : data.toString('base64'));
    return { code: result.code, signal: result.signal, stdout: keep(a.stdout, result.stdout), stderr: keep(a.stderr, result.stderr) };
  },
});
