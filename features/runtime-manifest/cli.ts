/**
 * `runtimectl runtime-manifest check FILE [--json]`: validates a scidex-runtime.yaml.
 * Valid: a one-line summary, exit 0. Invalid: one line with the file, field path and
 * reason, exit 1 (with --json, the same facts as one JSON document).
 */
import path from 'node:path';
import { isKernelError, kernelError } from '../../kernel/errors.ts';
import { readRuntimeManifest, summarizeRuntimeManifest } from './check.ts';
import { parseFlags, printJson, type CliIo, type Command } from '../command/command.ts';

const USAGE = `Usage: runtimectl runtime-manifest check FILE [--json]

Validates a scidex-runtime.yaml: artifact_ref (KIND:NAME), runtime_kind, entrypoint and/or
image, ports (1-65535), resources {cpu, memory_gb, gpu}, inputs, outputs, substrate
{registers_as, result_type, provenance_required}, maintainers. Unknown keys are errors.

Options:
  --json   print {valid, file, manifest} or {valid: false, file, code, field, reason}

Exit status: 0 when valid, 1 when not.
`;

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' } }, 'runtime-manifest check');
  if (positionals.length !== 1) {
    throw kernelError('RTC_ERR_CLI_USAGE', `expected one FILE, got ${positionals.length}; see "runtimectl runtime-manifest check --help"`);
  }
  const file = path.resolve(io.cwd, positionals[0] as string);
  const display = path.relative(io.cwd, file) || file;
  if (!values.json) {
    const manifest = readRuntimeManifest(file, io.cwd);
    io.stdout(`${display}: valid: ${summarizeRuntimeManifest(manifest)}\n`);
    return 0;
  }
  try {
    const manifest = readRuntimeManifest(file, io.cwd);
    printJson(io, { valid: true, file: display, summary: summarizeRuntimeManifest(manifest), manifest });
    return 0;
  } catch (error) {
    if (!isKernelError(error)) throw error;
    const { field, reason } = error.details as { field?: string; reason?: string };
    printJson(io, { valid: false, file: display, code: error.code, message: error.message, field: field ?? null, reason: reason ?? error.message });
    return 1;
  }
}

export const runtimeManifestCheckCommand: Command = {
  path: ['runtime-manifest', 'check'],
  summary: 'validate a scidex-runtime.yaml runtime manifest',
  usage: USAGE,
  run,
};
