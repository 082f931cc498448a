/**
 * `runtimectl`: the composition root's entry. The kernel's CLI skeleton (cli/command-line.ts)
 * runs the verbs the features provide, as cli/commands.ts lists them. The list is loaded
 * only when a command needs it, so `--version` loads none of the features' code (in the
 * precompiled CLI each part is its own chunk).
 *
 * `mcp serve` first tries its early paths (features/mcp/early-serve.ts), before the features
 * load: a kernel running the persona is bridged to, or the persona's tool plan answers an MCP
 * client's first `tools/list`, and the features are loaded (the full start) only when a tool
 * is called.
 */
import type { CliIo } from '../features/command/command.ts';
import { assertNodeFlags } from '../sandboxes/isolate/node-flags.ts';
import { defaultIo, reportError, runCommandLine, topLevelHelp as kernelHelp } from './command-line.ts';

const commands = async () => (await import('./commands.ts')).COMMANDS;

export async function main(argv: string[], given?: CliIo): Promise<number> {
  const io = given ?? defaultIo();
  if (argv[0] === 'mcp' && argv[1] === 'serve') {
    const { serveEarly } = await import('../features/mcp/early-serve.ts');
    const status = await serveEarly(argv.slice(2), io, {
      open: async (values, openIo, known) => {
        assertNodeFlags();
        const [{ openServeSource }, { openLoopKernel }] = await Promise.all([import('../features/mcp/serve-source.ts'), import('../features/science-loop/preset.ts')]);
        return openServeSource(openLoopKernel, values, openIo, known);
      },
      report: (error) => reportError(error, io),
    });
    if (status !== undefined) return status;
  }
  return runCommandLine(commands, argv, io);
}

export async function topLevelHelp(): Promise<string> {
  return kernelHelp(await commands());
}
