/**
 * Host-side helpers around an executor session: its run id and folder, the persistent
 * workspace the executor runs in (prepareWorkspace, before every run), and the manifest
 * the kernel writes itself when a plugin died before writing its own.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { prepareWorkspace, type PreparedWorkspace } from '../../workspace/prepare.ts';
import type { VisibleSkills } from '../../workspace/skill-catalog-record.ts';

/** `c000042-codex`: the cycle number and the executor, so runs sort by time and read at a glance. */
export function allocateRunId(sessionsDir: string, cycle: number, plugin: string): { runId: string; dir: string } {
  const base = `c${String(cycle).padStart(6, '0')}-${plugin.replace(/^executor\./, '')}`;
  for (let n = 1; ; n++) {
    const runId = n === 1 ? base : `${base}-${n}`;
    const dir = path.join(sessionsDir, runId);
    if (!existsSync(dir)) {
      mkdirSync(dir, { recursive: true });
      return { runId, dir };
    }
  }
}

export function preparePersonaWorkspace(workspaceRoot: string, personaId: string, workspaceId: string, skills: VisibleSkills): PreparedWorkspace {
  return prepareWorkspace({ agentId: personaId, workspaceId, stateDir: workspaceRoot, skillCatalog: skills });
}

/** Writes manifest.json for a session whose plugin ended before writing one. */
export function writeFallbackManifest(dir: string, fields: Record<string, unknown>): void {
  const file = path.join(dir, 'manifest.json');
  if (existsSync(file)) return;
  writeFileSync(file, `${JSON.stringify({ format: 'runtimectl.executor-session/1', written_by: 'kernel (the executor plugin ended before writing its manifest)', ...fields }, null, 2)}\n`);
}

/** Sets fields of a session manifest the plugin wrote (an interrupted session says so in its own folder); writes one when there is none. */
export function markSessionManifest(dir: string, fields: Record<string, unknown>): void {
  const file = path.join(dir, 'manifest.json');
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8').slice(0, 4 << 20)) as Record<string, unknown>;
  } catch {
    writeFallbackManifest(dir, fields);
    return;
  }
  writeFileSync(file, `${JSON.stringify({ ...manifest, ...fields }, null, 2)}\n`);
}
