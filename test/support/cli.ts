/** Runs the CLI in this process (no node spawn) and captures what it prints. */
import os from 'node:os';
import type { CliIo } from '../../features/command/command.ts';
import { main } from '../../cli/main.ts';

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd: options.cwd ?? os.tmpdir(), env: options.env ?? {} };
  const status = await main(argv, io);
  return { status, stdout, stderr };
}
