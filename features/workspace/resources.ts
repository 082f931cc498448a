/**
 * The two kinds of resource a workspace records. A resource ref (`artifact:hypothesis:example`)
 * names something in the substrate and is only recorded. A local resource
 * (`repo:agents=/home/me/scidex-agents`) is a path on this machine, linked into the
 * workspace folder for its kind.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { unsafeIdReason } from './ids.ts';

/** Local resource kind -> the workspace folder its links go in. */
export const LOCAL_RESOURCE_DIRS = { repo: 'repos', artifact: 'artifacts', tool: 'tools' } as const;
export type LocalResourceKind = keyof typeof LOCAL_RESOURCE_DIRS;
const KINDS = Object.keys(LOCAL_RESOURCE_DIRS) as LocalResourceKind[];

export interface ResourceRef {
  ref: string;
  kind: string;
}

export interface LocalResource {
  kind: LocalResourceKind;
  name: string;
  /** Absolute path on this machine. */
  target: string;
}

const RESOURCE_REF = /^([a-z][a-z0-9_-]*):(\S+)$/;

function invalid(message: string, details: Record<string, unknown>) {
  return kernelError('RTC_ERR_WORKSPACE_RESOURCE_INVALID', message, { details });
}

export function parseResourceRef(ref: string): ResourceRef {
  const match = RESOURCE_REF.exec(ref);
  if (!match) throw invalid(`resource ${JSON.stringify(ref)} is not KIND:REF (e.g. artifact:hypothesis:example)`, { ref });
  return { ref, kind: match[1] as string };
}

function parseKind(kind: string, input: string): LocalResourceKind {
  if ((KINDS as string[]).includes(kind)) return kind as LocalResourceKind;
  throw invalid(`local resource ${JSON.stringify(input)}: kind "${kind}" is not one of ${KINDS.join(', ')}`, { input, kind, allowed: KINDS });
}

/** Parses `KIND:NAME=PATH` (or checks an already split one) and resolves PATH against `cwd`. */
export function parseLocalResource(input: string | { kind: string; name: string; path: string }, cwd: string): LocalResource {
  let kind: string;
  let name: string;
  let rawPath: string;
  const display = typeof input === 'string' ? input : `${input.kind}:${input.name}=${input.path}`;
  if (typeof input === 'string') {
    const colon = input.indexOf(':');
    const equals = input.indexOf('=', colon + 1);
    if (colon <= 0 || equals === -1) throw invalid(`local resource ${JSON.stringify(input)} is not KIND:NAME=PATH (e.g. repo:agents=/src/agents)`, { input });
    kind = input.slice(0, colon);
    name = input.slice(colon + 1, equals);
    rawPath = input.slice(equals + 1);
  } else {
    ({ kind, name, path: rawPath } = input);
  }
  const checkedKind = parseKind(kind, display);
  const nameReason = unsafeIdReason(name);
  if (nameReason !== undefined) throw invalid(`local resource ${JSON.stringify(display)}: name ${JSON.stringify(name)} ${nameReason}`, { input: display, name });
  if (rawPath === '') throw invalid(`local resource ${JSON.stringify(display)}: PATH is empty`, { input: display });
  const target = path.resolve(cwd, rawPath);
  try {
    statSync(target);
  } catch {
    throw kernelError('RTC_ERR_WORKSPACE_RESOURCE_NOT_FOUND', `local resource ${JSON.stringify(display)}: ${target} does not exist`, {
      details: { input: display, path: target },
    });
  }
  return { kind: checkedKind, name, target };
}

/** The link's path inside the workspace, POSIX style: `repos/agents`. */
export function linkPathOf(resource: Pick<LocalResource, 'kind' | 'name'>): string {
  return `${LOCAL_RESOURCE_DIRS[resource.kind]}/${resource.name}`;
}
