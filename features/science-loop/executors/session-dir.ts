/**
 * Host-side helpers around an executor session: its run id and folder, the persistent
 * workspace the executor runs in (prepareWorkspace, before every run), and the manifest
 * the kernel writes itself when a plugin died before writing its own, or updates.
 *
 * The session's command may write its own folder (it is in its OS sandbox's grant), so the
 * kernel reads and writes there only through sandboxes/fs-safety/no-follow.ts, walking from the
 * state directory (which no sandboxed code can write): a link it planted where the manifest
 * goes is replaced, never written through, and one on the way is refused with one line. The
 * manifest is parsed with its one schema (plugins/executor-shared/model/session-manifest.ts) before the
 * kernel trusts or merges anything in it; one that does not parse is kept as
 * manifest.rejected.json and replaced.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  EXECUTOR_SESSION_FORMAT,
  executorSessionManifestSchema,
  REJECTED_MANIFEST_FILE,
  SESSION_MANIFEST_FILE,
  type ExecutorSessionManifest,
  type ExecutorSessionManifestInput,
} from '../../../plugins/executor-shared/model/session-manifest.ts';
import { mkdirBeneath, readFileBeneath, withParentHeld, inHeld, writeFileBeneath } from '../../../sandboxes/fs-safety/no-follow.ts';
import { describeZodError } from '../../../kernel/contracts/zod-error.ts';
import { errorLine } from '../../../kernel/errors.ts';
import { prepareWorkspace, type PreparedWorkspace } from '../../workspace/prepare.ts';
import type { VisibleSkills } from '../../workspace/skill-catalog-record.ts';

/** One session's folder, and the folder the kernel walks to it from (the state directory). */
export interface SessionFolder {
  /** the state directory: no sandboxed code can write it */
  anchor: string;
  dir: string;
}

const MANIFEST_CAP = 4 << 20;

/** `c000042-codex`: the cycle number and the executor, so runs sort by time and read at a glance. */
export function allocateRunId(stateDir: string, sessionsDir: string, cycle: number, plugin: string): { runId: string; dir: string } {
  const base = `c${String(cycle).padStart(6, '0')}-${plugin.replace(/^executor\./, '')}`;
  mkdirBeneath(sessionsDir, { anchor: stateDir });
  for (let n = 1; ; n++) {
    const runId = n === 1 ? base : `${base}-${n}`;
    const dir = path.join(sessionsDir, runId);
    // A new folder each time (mkdir without `recursive` is exclusive): anything already there, a link included, is skipped.
    const made = withParentHeld(dir, { anchor: stateDir }, (dirFd, name) => {
      try {
        mkdirSync(inHeld(dirFd, name));
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw error;
      }
    });
    if (made) return { runId, dir };
  }
}

export function preparePersonaWorkspace(stateDir: string, workspaceRoot: string, personaId: string, workspaceId: string, skills: VisibleSkills): PreparedWorkspace {
  return prepareWorkspace({ agentId: personaId, workspaceId, stateDir: workspaceRoot, skillCatalog: skills, anchor: stateDir });
}

type Found = { state: 'valid'; manifest: ExecutorSessionManifest } | { state: 'missing' } | { state: 'rejected'; why: string; bytes?: Buffer };

/** What stands at the session's manifest.json: a manifest that parses, nothing, or something the kernel will not trust (and why). */
function findManifest(folder: SessionFolder): Found {
  const file = path.join(folder.dir, SESSION_MANIFEST_FILE);
  let bytes: Buffer | undefined;
  try {
    bytes = readFileBeneath(file, { anchor: folder.anchor, maxBytes: MANIFEST_CAP, shown: SESSION_MANIFEST_FILE });
  } catch (error) {
    // a link, a FIFO, a hard link, a manifest over the cap: replaced, and said
    return { state: 'rejected', why: errorLine(error) };
  }
  if (bytes === undefined) return { state: 'missing' };
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return { state: 'rejected', why: `manifest.json is not JSON (${(error as Error).message})`, bytes };
  }
  const parsed = executorSessionManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = describeZodError(parsed.error);
    return { state: 'rejected', why: `manifest.json does not match the session manifest schema: ${issue.field}: ${issue.reason}`, bytes };
  }
  return { state: 'valid', manifest: parsed.data };
}

function writeManifest(folder: SessionFolder, manifest: ExecutorSessionManifestInput): void {
  // Checked before it is written: what the kernel writes must parse as what it reads.
  const checked = executorSessionManifestSchema.parse(manifest);
  writeFileBeneath(path.join(folder.dir, SESSION_MANIFEST_FILE), `${JSON.stringify(checked, null, 2)}\n`, { anchor: folder.anchor, shown: `${path.basename(folder.dir)}/${SESSION_MANIFEST_FILE}` });
}

/** Keeps the bytes of a manifest the kernel will not use beside it (nothing is lost), and says why in the new one. */
function keepRejected(folder: SessionFolder, found: Extract<Found, { state: 'rejected' }>): { rejected_manifest: string } {
  if (found.bytes) writeFileBeneath(path.join(folder.dir, REJECTED_MANIFEST_FILE), found.bytes, { anchor: folder.anchor });
  return { rejected_manifest: `${found.why.slice(0, 900)}${found.bytes ? ` (kept as ${REJECTED_MANIFEST_FILE})` : ''}` };
}

/** What the kernel writes for a session whose plugin wrote nothing usable. */
export type FallbackFields = Omit<ExecutorSessionManifestInput, 'format' | 'written_by'>;

/** Writes manifest.json for a session whose plugin ended before writing one (or wrote one that does not parse). */
export function writeFallbackManifest(folder: SessionFolder, fields: FallbackFields): void {
  const found = findManifest(folder);
  if (found.state === 'valid') return;
  writeManifest(folder, {
    format: EXECUTOR_SESSION_FORMAT,
    written_by: 'kernel (the executor plugin ended before writing its manifest)',
    ...fields,
    ...(found.state === 'rejected' ? keepRejected(folder, found) : {}),
  });
}

/**
 * Checks the manifest the plugin wrote once its `run` returned: one that is missing or does
 * not parse is replaced by the kernel's (`fields`: what the plugin's answer said).
 */
export function checkSessionManifest(folder: SessionFolder, fields: FallbackFields): void {
  writeFallbackManifest(folder, fields);
}

/** Sets fields of a session manifest the plugin wrote (an interrupted session says so in its own folder); writes one when there is none. */
export function markSessionManifest(folder: SessionFolder, fields: Partial<FallbackFields>, fallback: FallbackFields): void {
  const found = findManifest(folder);
  if (found.state !== 'valid') {
    const base: FallbackFields = { ...fallback, ...fields };
    writeManifest(folder, {
      format: EXECUTOR_SESSION_FORMAT,
      written_by: 'kernel (the executor plugin ended before writing its manifest)',
      ...base,
      ...(found.state === 'rejected' ? keepRejected(folder, found) : {}),
    });
    return;
  }
  writeManifest(folder, { ...found.manifest, ...fields });
}
