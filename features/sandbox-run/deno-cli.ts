/**
 * `runtimectl deno run|eval|test ...`: the program behind `Deno.execPath()`
 * (features/sandbox-run/runner/exec-path.ts). It takes a deno command line and runs it in the sandbox:
 * `run [flags] FILE [ARGS]` as `sandbox run`, `test ...` as `sandbox test`, and
 * `eval [flags] CODE [ARGS]` as a one-module script run with every permission the profile
 * allows (deno eval grants all). `--version` names the Deno version the shim follows.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { DENO_VERSION } from '../../sandboxes/shim/deno/namespace.ts';
import type { Command, CliIo } from '../command/command.ts';
import { sandboxRunCommand } from './cli.ts';
import { sandboxTestCommand } from './test-cli.ts';

const USAGE = `Usage: runtimectl deno run [flags] FILE [ARGS...]
       runtimectl deno eval [flags] CODE [ARGS...]
       runtimectl deno test [flags] [FILES...]
       runtimectl deno --version

The deno-compatible program scripts get from Deno.execPath(): a deno command line run in the
sandbox (see "runtimectl sandbox run --help" and "runtimectl sandbox test --help").
`;

/** deno flags that change nothing here: accepted so a deno command line runs unchanged */
const IGNORED = new Set(['--no-check', '--no-config', '--no-prompt', '--quiet', '-q', '--no-lock', '--no-remote', '--no-npm', '--check', '--cached-only', '--reload', '-r', '--unstable']);

function strip(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    // flags stop at the first positional (the file or the code)
    if (!arg.startsWith('-')) {
      out.push(...argv.slice(i));
      break;
    }
    if (IGNORED.has(arg) || arg.startsWith('--unstable-') || arg.startsWith('--v8-flags=') || arg.startsWith('--seed=') || arg.startsWith('--location=')) continue;
    out.push(arg);
  }
  return out;
}

async function evalCode(argv: string[], io: CliIo): Promise<number> {
  const args = strip(argv);
  const at = args.findIndex((a) => !a.startsWith('-'));
  if (at === -1) throw kernelError('RTC_ERR_CLI_USAGE', 'deno eval needs CODE; see "runtimectl deno --help"');
  const flags = args.slice(0, at).filter((f) => f !== '--ext=ts' && f !== '--ext=js' && f !== '-p' && f !== '--print');
  const print = args.slice(0, at).some((f) => f === '-p' || f === '--print');
  const code = args[at]!;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-eval-'));
  try {
    const file = path.join(dir, '$deno$eval.mts');
    writeFileSync(file, print ? `console.log(${code}\n);\n` : `${code}\n`);
    // deno eval grants everything; the profile's ceiling still applies.
    return await sandboxRunCommand.run(['-A', ...flags, file, ...args.slice(at + 1)], io);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const denoCommand: Command = {
  path: ['deno'],
  rawStderr: true,
  summary: 'the deno-compatible program of Deno.execPath(): deno run|eval|test in the sandbox',
  usage: USAGE,
  async run(argv, io) {
    const [sub, ...rest] = argv;
    switch (sub) {
      case 'run':
        return sandboxRunCommand.run(strip(rest), io);
      case 'test':
        return sandboxTestCommand.run(strip(rest), io);
      case 'eval':
        return evalCode(rest, io);
      case '--version':
      case '-V':
        io.stdout(`deno ${DENO_VERSION.deno} (runtimectl sandbox)\nv8 ${DENO_VERSION.v8}\ntypescript ${DENO_VERSION.typescript}\n`);
        return 0;
      default:
        throw kernelError('RTC_ERR_CLI_USAGE', `runtimectl deno supports run, eval and test, not "${sub ?? ''}"; see "runtimectl deno --help"`);
    }
  },
};
