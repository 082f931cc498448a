/**
 * `runtimectl sandbox run [deno permission flags] [--memory-mb N] [--cpu-ms N] [--wall-ms N]
 * [--profile NAME] [--json] FILE [ARGS...]`: like `deno run`. Flags come before the file;
 * everything after it is the script's `Deno.args`.
 */
import { isPermissionFlag } from './permission-flags.ts';
import { kernelError } from '../../kernel/errors.ts';
import { createScriptRunner } from './runner/script-runner.ts';
import type { ScriptLimits } from './runner/script-run-types.ts';
import { printJson, type Command } from '../command/command.ts';

const USAGE = `Usage: runtimectl sandbox run [permission flags] [options] FILE [ARGS...]

Runs a TypeScript or JavaScript module in the sandbox, like \`deno run\`: same stdout, same
exit status for scripts within the supported subset (see docs/sandbox.md). Flags go before FILE;
everything after FILE is the script's Deno.args.

Permission flags (Deno's): --allow-read[=PATHS] --allow-write[=PATHS] --allow-net[=HOSTS]
  --allow-env[=VARS] --allow-run[=CMDS] -A/--allow-all, -R -W -N -E, and --deny-* (deny wins)
Options:
  --profile NAME     sandbox profile (default: default = isolates in sandbox host processes;
                     trusted = in-process isolates; community-draft = tight limits)
  --memory-mb N      isolate heap limit
  --cpu-ms N         CPU time limit
  --wall-ms N        wall time limit
  --output-bytes N   cap on stdout+stderr
  --json             print one JSON object: ok, exitCode, stdout, stderr, error, usage
  --help             this text
`;

const LIMIT_FLAGS: Record<string, keyof ScriptLimits> = {
  '--memory-mb': 'memoryMb',
  '--cpu-ms': 'cpuMs',
  '--wall-ms': 'wallMs',
  '--output-bytes': 'outputBytes',
};

interface Parsed {
  permissionFlags: string[];
  limits: Partial<ScriptLimits>;
  profile: string | undefined;
  json: boolean;
  file: string;
  args: string[];
}

/** Hand-parsed: Deno's flag grammar (`--allow-read=a,b`, `-A`) and "stop at the file". */
export function parseSandboxRunArgs(argv: readonly string[]): Parsed {
  const parsed: Omit<Parsed, 'file' | 'args'> = { permissionFlags: [], limits: {}, profile: undefined, json: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('-') || arg === '-') return { ...parsed, file: arg, args: argv.slice(i + 1) };
    if (arg === '--') {
      const file = argv[i + 1];
      if (file === undefined) break;
      return { ...parsed, file, args: argv.slice(i + 2) };
    }
    if (arg === '--json') {
      parsed.json = true;
      continue;
    }
    const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (name in LIMIT_FLAGS || name === '--profile') {
      const value = inline ?? argv[++i];
      if (value === undefined) throw kernelError('RTC_ERR_CLI_USAGE', `${name} needs a value; see "runtimectl sandbox run --help"`);
      if (name === '--profile') {
        parsed.profile = value;
        continue;
      }
      const n = Number(value);
      if (!Number.isInteger(n) || n <= 0) throw kernelError('RTC_ERR_CLI_USAGE', `${name} must be a positive integer, got "${value}"`);
      parsed.limits[LIMIT_FLAGS[name]!] = n;
      continue;
    }
    if (isPermissionFlag(arg)) {
      parsed.permissionFlags.push(arg);
      continue;
    }
    throw kernelError('RTC_ERR_CLI_USAGE', `unknown flag "${arg}"; see "runtimectl sandbox run --help"`);
  }
  throw kernelError('RTC_ERR_CLI_USAGE', 'no FILE given; see "runtimectl sandbox run --help"');
}

export const sandboxRunCommand: Command = {
  path: ['sandbox', 'run'],
  rawStderr: true,
  summary: 'run a Deno-style script in the sandbox, like deno run',
  usage: USAGE,
  async run(argv, io) {
    const parsed = parseSandboxRunArgs(argv);
    const runner = await createScriptRunner();
    try {
      const result = await runner.run({
        file: parsed.file,
        args: parsed.args,
        permissionFlags: parsed.permissionFlags,
        cwd: io.cwd,
        env: io.env,
        ...(parsed.profile ? { profile: parsed.profile } : {}),
        limits: parsed.limits,
      });
      if (parsed.json) printJson(io, result);
      else {
        io.stdout(result.stdout);
        io.stderr(result.stderr);
      }
      return result.exitCode;
    } finally {
      await runner.close();
    }
  },
};
