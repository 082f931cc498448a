/**
 * The workspace preparer: the first runtime-fabric primitive. It creates
 * `<stateDir>/workspaces/<workspace_id>/` with the standard layout, records the resources
 * and the visible skill catalog in `manifests/`, and links local resources into `repos/`,
 * `artifacts/` and `tools/`. Executors call it before every run; `runtimectl workspace
 * prepare` is the same function.
 *
 * It is idempotent: the manifests hold no wall-clock time, files are rewritten only when
 * their bytes change, and links only when their target changes. With different inputs it
 * updates the manifests, relinks, and removes the links the previous manifest made that
 * are no longer asked for. Every input is checked before anything is written, and a real
 * file or folder where a link should go is never replaced.
 *
 * A persona's executor writes its workspace from inside its sandbox, so every read, write and
 * link here goes through sandboxes/fs-safety/no-follow.ts from `anchor` (a folder no sandboxed
 * code can write: the state directory): a folder of the workspace swapped for a link is
 * refused (RTC_ERR_FS_LINK_REFUSED), a link planted where a manifest goes is replaced, never
 * written through.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readlinkSync, symlinkSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { inHeld, mkdirBeneath, readFileBeneath, withParentHeld, writeFileBeneath } from '../../sandboxes/fs-safety/no-follow.ts';
import { KERNEL_VERSION } from '../../kernel/version.ts';
import { assertSafeId, unsafeIdReason } from './ids.ts';
import { workspaceReadme } from './readme.ts';
import { linkPathOf, parseLocalResource, parseResourceRef, LOCAL_RESOURCE_DIRS, type LocalResource, type ResourceRef } from './resources.ts';
import { skillCatalogRecord, type VisibleSkills } from './skill-catalog-record.ts';

export const WORKSPACE_FORMAT = 'runtimectl.workspace/1';
export const WORKSPACE_DIRS = ['manifests', 'repos', 'artifacts', 'tools', 'results', 'scratch', 'logs', 'state'] as const;

export interface PrepareWorkspaceInput {
  agentId: string;
  workspaceId: string;
  /** Substrate refs (`artifact:hypothesis:example`), recorded only. */
  resources?: readonly string[];
  /** `KIND:NAME=PATH` strings or split objects; PATH is resolved against `cwd`. */
  localResources?: ReadonlyArray<string | { kind: string; name: string; path: string }>;
  stateDir: string;
  /** The skills visible to the run: a loaded catalog, or a selection from one. */
  skillCatalog?: VisibleSkills;
  /** Base for relative local resource paths (default: the process cwd). */
  cwd?: string;
  /** A folder above `stateDir` that no sandboxed code can write, where every walk starts (default: `stateDir` itself). */
  anchor?: string;
}

export interface WorkspaceManifest {
  format: typeof WORKSPACE_FORMAT;
  agent_id: string;
  workspace_id: string;
  prepared_by: string;
  layout: string[];
  resources: ResourceRef[];
  local_resources: Array<{ kind: string; name: string; link: string; target: string }>;
  skill_catalog: { file: string; digest: string; skills: number; refused: number };
}

export interface PreparedWorkspace {
  dir: string;
  manifestFile: string;
  skillCatalogFile: string;
  manifest: WorkspaceManifest;
  /** True when the workspace folder did not exist before this call. */
  created: boolean;
  /** Workspace-relative paths written, linked or unlinked by this call; empty when nothing changed. */
  changes: string[];
}

function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

function conflict(where: string, what: string) {
  return kernelError('RTC_ERR_WORKSPACE_CONFLICT', `${where}: ${what}`, { details: { path: where } });
}

function lstatOrUndefined(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

/** What the workspace's own files may hold (its manifests, its readme): a cap, not a quota. */
const WORKSPACE_FILE_CAP = 16 * 1024 * 1024;

/** Writes via a temp file and rename (never through what stood there) so a reader never sees half a manifest; skips identical bytes. */
function writeIfChanged(anchor: string, file: string, text: string): boolean {
  try {
    if (readFileBeneath(file, { anchor, maxBytes: WORKSPACE_FILE_CAP })?.toString('utf8') === text) return false;
  } catch {
    // a link, a FIFO, an oversized file where ours goes: replaced below
  }
  writeFileBeneath(file, text, { anchor });
  return true;
}

/** Creates `dir` unless present; true when it was created. */
function ensureDir(anchor: string, dir: string, display: string): boolean {
  const info = lstatOrUndefined(dir);
  if (info !== undefined && !info.isDirectory()) throw conflict(display, 'exists and is not a directory');
  mkdirBeneath(dir, { anchor });
  return info === undefined;
}

/** Makes `link` point at `target`; a symlink is ours to replace, anything else is a conflict. Acts in the link's folder held by descriptor. */
function ensureLink(anchor: string, link: string, target: string, display: string): boolean {
  return withParentHeld(link, { anchor }, (dirFd, name) => {
    const at = inHeld(dirFd, name);
    const info = lstatOrUndefined(at);
    if (info?.isSymbolicLink()) {
      if (readlinkSync(at) === target) return false;
      unlinkSync(at);
    } else if (info !== undefined) {
      throw conflict(display, 'exists and is not a link; move it away to link a local resource here');
    }
    symlinkSync(target, at);
    return true;
  });
}

function previousManifest(anchor: string, file: string): WorkspaceManifest | undefined {
  try {
    const value = JSON.parse(readFileBeneath(file, { anchor, maxBytes: WORKSPACE_FILE_CAP })?.toString('utf8') ?? '') as WorkspaceManifest;
    return value.format === WORKSPACE_FORMAT && Array.isArray(value.local_resources) ? value : undefined;
  } catch {
    return undefined;
  }
}

function checkInputs(input: PrepareWorkspaceInput): { resources: ResourceRef[]; locals: LocalResource[] } {
  assertSafeId('agent id', input.agentId);
  assertSafeId('workspace id', input.workspaceId);
  const cwd = input.cwd ?? process.cwd();

  const refs = new Map<string, ResourceRef>();
  for (const ref of input.resources ?? []) refs.set(ref, parseResourceRef(ref));

  const locals = new Map<string, LocalResource>();
  for (const raw of input.localResources ?? []) {
    const local = parseLocalResource(raw, cwd);
    const key = linkPathOf(local);
    const earlier = locals.get(key);
    if (earlier && earlier.target !== local.target) {
      throw kernelError('RTC_ERR_WORKSPACE_RESOURCE_INVALID', `local resource ${key} is given twice, as ${earlier.target} and ${local.target}`, {
        details: { link: key },
      });
    }
    locals.set(key, local);
  }
  // Sorted so the same set of inputs in any order gives the same manifest bytes.
  const byKey = <T>(map: Map<string, T>) => [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
  return { resources: byKey(refs), locals: byKey(locals) };
}

export function prepareWorkspace(input: PrepareWorkspaceInput): PreparedWorkspace {
  const { resources, locals } = checkInputs(input);

  const workspacesDir = path.resolve(input.stateDir, 'workspaces');
  const anchor = path.resolve(input.anchor ?? input.stateDir);
  const dir = path.join(workspacesDir, input.workspaceId);
  const existing = lstatOrUndefined(dir);
  if (existing !== undefined && !existing.isDirectory()) throw conflict(dir, 'exists and is not a directory (a link here is refused, too)');
  const created = existing === undefined;
  // The anchor (the state directory) is the operator's, made plainly when missing; below it
  // nothing is followed through a link.
  mkdirSync(anchor, { recursive: true });
  mkdirBeneath(dir, { anchor });

  const changes: string[] = [];
  for (const sub of WORKSPACE_DIRS) if (ensureDir(anchor, path.join(dir, sub), path.join(dir, sub))) changes.push(`${sub}/`);

  const manifestFile = path.join(dir, 'manifests', 'workspace.json');
  const skillCatalogFile = path.join(dir, 'manifests', 'skill-catalog.json');
  const previous = previousManifest(anchor, manifestFile);

  const catalog = skillCatalogRecord(input.skillCatalog);
  const catalogText = `${JSON.stringify(catalog, null, 2)}\n`;
  if (writeIfChanged(anchor, skillCatalogFile, catalogText)) changes.push('manifests/skill-catalog.json');

  const wanted = new Set(locals.map(linkPathOf));
  for (const old of previous?.local_resources ?? []) {
    if (wanted.has(old.link) || typeof old.link !== 'string') continue;
    // Only links the previous prepare made, only while they are still links, and only in
    // the link folders: the old manifest is a file on disk, not trusted to name any path.
    const parts = old.link.split('/');
    const [folder, name] = parts;
    const inLinkFolder = parts.length === 2 && (Object.values(LOCAL_RESOURCE_DIRS) as string[]).includes(folder ?? '') && unsafeIdReason(name ?? '') === undefined;
    const file = path.join(dir, old.link);
    if (inLinkFolder && lstatOrUndefined(file)?.isSymbolicLink()) {
      withParentHeld(file, { anchor }, (dirFd, name) => {
        if (lstatOrUndefined(inHeld(dirFd, name))?.isSymbolicLink()) unlinkSync(inHeld(dirFd, name));
      });
      changes.push(old.link);
    }
  }
  for (const local of locals) {
    const link = linkPathOf(local);
    if (ensureLink(anchor, path.join(dir, link), local.target, path.join(dir, link))) changes.push(link);
  }

  const manifest: WorkspaceManifest = {
    format: WORKSPACE_FORMAT,
    agent_id: input.agentId,
    workspace_id: input.workspaceId,
    prepared_by: `runtimectl ${KERNEL_VERSION}`,
    layout: [...WORKSPACE_DIRS],
    resources,
    local_resources: locals.map((l) => ({ kind: l.kind, name: l.name, link: linkPathOf(l), target: l.target })),
    skill_catalog: { file: 'manifests/skill-catalog.json', digest: sha256(catalogText), skills: catalog.skills.length, refused: catalog.refused.length },
  };
  if (writeIfChanged(anchor, manifestFile, `${JSON.stringify(manifest, null, 2)}\n`)) changes.push('manifests/workspace.json');
  if (writeIfChanged(anchor, path.join(dir, 'workspace-readme.md'), workspaceReadme(manifest))) changes.push('workspace-readme.md');

  return { dir, manifestFile, skillCatalogFile, manifest, created, changes };
}
