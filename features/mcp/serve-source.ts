/**
 * What `mcp serve` serves when it opens the persona itself: the tool source (tool-source.ts);
 * and, when the persona is opened here rather than relayed to a kernel running it, each
 * listing that differs from the last is written to the persona's tool plan (tool-plan.ts), so
 * the next `mcp serve` of the same invocation answers `tools/list` before it starts the kernel
 * (early-serve.ts).
 */
import type { CliIo } from '../command/command.ts';
import { errorLine } from '../../kernel/errors.ts';
import type { ToolSource as ServedToolSource } from '../persona/tools/mcp-server.ts';
import { pluginSearchPath } from '../plugin-search/scan.ts';
import { PROFILES_DIR } from '../plugin-search/sandbox-profiles.ts';
import { REPO_SKILLS_DIR } from '../skills/layout.ts';
import { invocationKey, planInputs, sameReport, writeToolPlan, type ServeValues, type ToolReport } from './tool-plan.ts';
import { openToolSource, sourceOptions, type OpenToolKernel } from './tool-source.ts';

/**
 * Opens the persona's tools for `mcp serve`. `known`: the listing already served from the
 * plan (a listing equal to it is not written again).
 */
export async function openServeSource(openKernel: OpenToolKernel, values: ServeValues & { persona: string }, io: CliIo, known?: ToolReport): Promise<ServedToolSource> {
  const options = sourceOptions(openKernel, values, values.persona, 'mcp', io);
  const source = await openToolSource(options, io);
  if (source.opened === undefined) return source;
  // the persona and its folder as the source resolved them; what the listing is made of: the
  // profile, and the folders plugins, skills and sandbox profiles are found in
  const { persona, personaDir } = source.opened;
  const folders = [...pluginSearchPath({ env: io.env, dirs: values['plugins-dir'] ?? [], cwd: io.cwd }), REPO_SKILLS_DIR, ...(options.skillsDirs ?? []), PROFILES_DIR];
  const key = invocationKey(values, io);
  let written = known;
  let unwritable = false;
  return {
    async list() {
      // read before listing: an edit made meanwhile leaves a plan that no longer matches, not one that hides it
      const inputs = planInputs([persona.file], folders);
      const report = await source.list();
      if (written === undefined || !sameReport(written, report)) {
        try {
          writeToolPlan(personaDir, { key, persona: { id: persona.profile.id, file: persona.file }, inputs, report });
          written = report;
        } catch (error) {
          // a cache: without it the next start only takes longer
          if (!unwritable) io.stderr(`runtimectl mcp serve: the tool plan was not written (${errorLine(error)}); the next start runs the full start check\n`);
          unwritable = true;
        }
      }
      return report;
    },
    call: (name, args) => source.call(name, args),
    close: () => source.close(),
  };
}
