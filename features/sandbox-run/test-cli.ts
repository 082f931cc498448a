/**
 * `runtimectl sandbox test [deno permission flags] [--filter S] [--profile NAME] [--json]
 * [FILES...]`: like `deno test` for the supported subset (features/sandbox-run/runner/test-runner.ts).
 */
import { isPermissionFlag } from './permission-flags.ts';
import { kernelError } from '../../kernel/errors.ts';
import { createTestRunner } from './runner/test-runner.ts';
import type { ScriptLimits } from './runner/script-run-types.ts';
import { printJson, type Command } from '../command/command.ts';

const USAGE = `Usage: runtimectl sandbox test [permission flags] [options] [FILES...]

Runs Deno.test tests in the sandbox, like \`deno test\`: Deno's result lines and summary,
exit status 1 when a test fails. FILES may be files or folders; without any, every test
file under the current folder (test.ts, *_test.ts, *.test.ts ...). A test's \`permissions\`
narrow the run's grant while it runs; sanitizers are not run.

Permission flags (Deno's): --allow-read[=PATHS] --allow-write[=PATHS] --allow-net[=HOSTS]
  --allow-env[=VARS] --allow-run[=CMDS] -A/--allow-all, -R -W -N -E, and --deny-* (deny wins)
Options:
  --filter S         run only tests whose name contains S (or matches /regex/)
  --profile NAME     sandbox profile (default: default, the process tier; trusted; community-draft)
  --memory-mb N  --cpu-ms N  --wall-ms N  --output-bytes N   limits, per test file
  --json             one JSON object: ok, exitCode, stdout, stderr, files, summary
  --no-check --no-config --no-prompt --quiet   accepted for deno compatibility (no effect)
  --help             this text
`;

const LIMIT_FLAGS: Record<string, keyof ScriptLimits> = { '--memory-mb': 'memoryMb', '--cpu-ms': 'cpuMs', '--wall-ms': 'wallMs', '--output-bytes': 'outputBytes' };
/** deno test flags with no meaning here, accepted so a deno command line works unchanged */
const IGNORED = new Set(['--no-check', '--no-config', '--no-prompt', '--quiet', '-q', '--no-lock', '--no-remote', '--no-npm', '--parallel']);

export interface SandboxTestArgs {
  permissionFlags: string[];
  filter: string | undefined;
  profile: string | undefined;
  limits: Partial<ScriptLimits>;
  json: boolean;
  files: string[];
}

export function parseSandboxTestArgs(argv: readonly string[], usageName = 'sandbox test'): SandboxTestArgs {
  const parsed: SandboxTestArgs = { permissionFlags: [], filter: undefined, profile: undefined, limits: {}, json: false, files: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      parsed.files.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      parsed.files.push(arg);
      continue;
    }
    if (arg === '--json') {
      parsed.json = true;
      continue;
    }
    if (IGNORED.has(arg)) continue;
    const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (name === '--filter' || name === '--profile' || name in LIMIT_FLAGS) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw kernelError('RTC_ERR_CLI_USAGE', `${name} needs a value; see "runtimectl ${usageName} --help"`);
      if (name === '--filter') parsed.filter = value;
      else if (name === '--profile') parsed.profile = value;
      else {
        const n = Number(value);
        if (!Number.isInteger(n) || n <= 0) throw kernelError('RTC_ERR_CLI_USAGE', `${name} must be a positive integer, got "${value}"`);
        parsed.limits[LIMIT_FLAGS[name]!] = n;
      }
      continue;
    }
    if (isPermissionFlag(arg)) {
      parsed.permissionFlags.push(arg);
      continue;
    }
    throw kernelError('RTC_ERR_CLI_USAGE', `unknown flag "${arg}"; see "runtimectl ${usageName} --help"`);
  }
  return parsed;
}

export const sandboxTestCommand: Command = {
  path: ['sandbox', 'test'],
  rawStderr: true,
  summary: 'run Deno.test tests in the sandbox, like deno test',
  usage: USAGE,
  async run(argv, io) {
    const parsed = parseSandboxTestArgs(argv);
    const runner = await createTestRunner();
    try {
      const result = await runner.run({
        files: parsed.files,
        permissionFlags: parsed.permissionFlags,
        cwd: io.cwd,
        env: io.env,
        limits: parsed.limits,
        ...(parsed.filter !== undefined ? { filter: parsed.filter } : {}),
        ...(parsed.profile ? { profile: parsed.profile } : {}),
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
