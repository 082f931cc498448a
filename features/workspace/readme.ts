/** The `workspace-readme.md` a run (or an operator) reads first. Generated, deterministic. */
import type { WorkspaceManifest } from './prepare.ts';

export function workspaceReadme(manifest: WorkspaceManifest): string {
  const resources = manifest.resources.length === 0 ? ['- (none)'] : manifest.resources.map((r) => `- \`${r.ref}\``);
  const links =
    manifest.local_resources.length === 0 ? ['- (none)'] : manifest.local_resources.map((r) => `- \`${r.link}\` -> \`${r.target}\` (${r.kind})`);
  return [
    `# Workspace ${manifest.workspace_id}`,
    '',
    `Agent: \`${manifest.agent_id}\`. Prepared by ${manifest.prepared_by}; regenerated on every prepare, do not edit.`,
    '',
    'This workspace is recoverable operational evidence, not the source of truth: durable',
    'outputs become substrate artifacts or Forgejo commits and pull requests.',
    '',
    '## Layout',
    '',
    '- `manifests/workspace.json`: this workspace, its resources and links',
    `- \`manifests/skill-catalog.json\`: the ${manifest.skill_catalog.skills} skills visible to the run, with the digest of each SKILL.md`,
    '- `repos/`: Git working copies or local repository links',
    '- `artifacts/`: artifact source bundles and manifests',
    '- `tools/`: tool bundles or runtime descriptors',
    '- `results/`: staged output before substrate submission',
    '- `scratch/`: ephemeral computation files',
    '- `logs/`: run-local logs, safe to back up',
    '- `state/`: run-local state, never secrets',
    '',
    '## Resources',
    '',
    ...resources,
    '',
    '## Local resource links',
    '',
    ...links,
    '',
  ].join('\n');
}
