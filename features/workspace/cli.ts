/**
 * `runtimectl workspace prepare`: the CLI face of prepareWorkspace (features/workspace), the
 * same primitive executors call before a run.
 */
import { kernelError } from '../../kernel/errors.ts';
import { loadSkillCatalog } from '../skills/catalog.ts';
import { REPO_SKILLS_DIR } from '../skills/layout.ts';
import { prepareWorkspace } from './prepare.ts';
import { parseFlags, printJson, type CliIo, type Command } from '../command/command.ts';
import { skillRootsForDirs } from '../skills/cli.ts';
import { checkStateDirUsable, chooseStateDir } from '../persistence/state/state-dir.ts';

const USAGE = `Usage: runtimectl workspace prepare --agent-id ID --workspace-id ID
         [--resource REF]... [--local-resource KIND:NAME=PATH]...
         [--state-dir DIR] [--skills-dir DIR]... [--json]

Creates or updates <state-dir>/workspaces/<workspace-id>/ with workspace-readme.md,
manifests/workspace.json, manifests/skill-catalog.json and the folders repos/, artifacts/,
tools/, results/, scratch/, logs/, state/. Running it again with the same inputs changes
nothing.

Options:
  --agent-id ID                    the agent the workspace belongs to
  --workspace-id ID                one path segment: letters, digits, ".", "_", "-"
  --resource REF                   a substrate ref to record, e.g. artifact:hypothesis:example
  --local-resource KIND:NAME=PATH  link PATH as repos/NAME (repo), artifacts/NAME (artifact)
                                   or tools/NAME (tool); PATH must exist
  --state-dir DIR                  default: $SCIDEX_AGENT_STATE_DIR, else ./state
  --skills-dir DIR                 skills visible to the run; default: the repo's skills/
  --json                           print the workspace manifest and what changed
`;

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(
    argv,
    {
      'agent-id': { type: 'string' },
      'workspace-id': { type: 'string' },
      resource: { type: 'string', multiple: true },
      'local-resource': { type: 'string', multiple: true },
      'state-dir': { type: 'string' },
      'skills-dir': { type: 'string', multiple: true },
      json: { type: 'boolean' },
    },
    'workspace prepare',
    false,
  );
  for (const flag of ['agent-id', 'workspace-id'] as const) {
    if (values[flag] === undefined) throw kernelError('RTC_ERR_CLI_USAGE', `--${flag} is required; see "runtimectl workspace prepare --help"`);
  }
  // An empty SCIDEX_AGENT_STATE_DIR counts as unset, not as the current directory.
  const { given, stateDir } = chooseStateDir(values['state-dir'], io.env, io.cwd);
  checkStateDirUsable(given, stateDir);
  const skillsDirs = values['skills-dir'] && values['skills-dir'].length > 0 ? values['skills-dir'] : [REPO_SKILLS_DIR];
  const skillCatalog = await loadSkillCatalog(skillRootsForDirs(skillsDirs, io.cwd), { displayRoot: io.cwd });

  const prepared = prepareWorkspace({
    agentId: values['agent-id'] as string,
    workspaceId: values['workspace-id'] as string,
    resources: values.resource ?? [],
    localResources: values['local-resource'] ?? [],
    stateDir,
    skillCatalog,
    cwd: io.cwd,
  });

  if (values.json) {
    printJson(io, { dir: prepared.dir, created: prepared.created, changes: prepared.changes, manifest: prepared.manifest });
    return 0;
  }
  const m = prepared.manifest;
  const state = prepared.created ? 'created' : prepared.changes.length === 0 ? 'unchanged' : `updated (${prepared.changes.join(', ')})`;
  io.stdout(`workspace ${m.workspace_id} for ${m.agent_id}: ${state}\n`);
  io.stdout(`  dir: ${prepared.dir}\n`);
  io.stdout(`  resources: ${m.resources.length}, local links: ${m.local_resources.length}, skills: ${m.skill_catalog.skills}`);
  io.stdout(m.skill_catalog.refused > 0 ? ` (${m.skill_catalog.refused} refused)\n` : '\n');
  for (const link of m.local_resources) io.stdout(`  ${link.link} -> ${link.target}\n`);
  return 0;
}

export const workspacePrepareCommand: Command = {
  path: ['workspace', 'prepare'],
  summary: 'create or update an agent run workspace and record its skills and resources',
  usage: USAGE,
  run,
};
