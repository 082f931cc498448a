/**
 * The persona's tool plan (`<persona>/tools-plan.json`): what `mcp serve` last listed for one
 * way of invoking it, with the files that listing came from, so the next `mcp serve` can
 * answer `initialize` and `tools/list` before it loads the kernel and runs the start check
 * (early-serve.ts). It is a cache, never evidence: a plan that is missing, unreadable, of
 * another format, for another invocation, or whose files changed is not used, and the full
 * start runs as it would without one.
 *
 * What a plan is checked against:
 *  - the invocation key: the persona ref (a file resolved against the working folder), the
 *    state folder, the --plugins-dir and --skills-dir flags, the working folder, and the
 *    RUNTIMECTL_ and SCIDEX_ variables (hashed: they may hold secrets);
 *  - the inputs: size and modification time of the persona file, the CLI's build record, and
 *    each folder of the plugin and skill search paths and of the sandbox profiles, two levels
 *    down (a plugin folder and the files in it: its manifest, its entry). A plugin added,
 *    removed or edited changes one of them.
 * What the check cannot see (a file three levels down, a mounted server that lists other
 * tools today) is corrected after the start: the served list is compared with the kernel's
 * and, when it differs, the client is told (`notifications/tools/list_changed`) and the plan
 * rewritten.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { KERNEL_VERSION, PROJECT_ROOT } from '../../kernel/version.ts';
import { replaceFileDurably } from '../../kernel/storage/durable-files.ts';
import { looksLikeFile } from '../profiles/persona-ref.ts';
import type { ToolInfo, ToolProblem } from '../persona/tools/call-tool.ts';

export const TOOL_PLAN_FILE = 'tools-plan.json';
const FORMAT = 'runtimectl.tool-plan/1';

/** The build record the precompiled CLI runs from (bin/build-cli.mjs): a rebuild is a new plan. */
const BUILD_RECORD = path.join(PROJECT_ROOT, '.build', 'runtimectl.json');

/** The flags of every command that opens a persona's tools (`mcp serve`, `tools list`, `tools call`). */
export const SOURCE_FLAGS = { persona: { type: 'string' }, 'state-dir': { type: 'string' }, 'plugins-dir': { type: 'string', multiple: true }, 'skills-dir': { type: 'string', multiple: true } } as const;

/** `mcp serve`'s flags, as both the planned and the full start read them. */
export interface ServeValues {
  persona?: string;
  'state-dir'?: string;
  'plugins-dir'?: string[];
  'skills-dir'?: string[];
}

/** A file or folder's path, size and modification time when the plan was written; -1, -1: it did not exist. */
type Input = [file: string, size: number, mtimeMs: number];

export type ToolReport = { tools: ToolInfo[]; problems: ToolProblem[] };

export interface ToolPlan {
  format: typeof FORMAT;
  /** the CLI's version that wrote it */
  version: string;
  /** invocationKey() of the command line it was written for */
  key: string;
  persona: { id: string; file: string };
  inputs: Input[];
  /** the listing as the kernel made it, served as it is */
  report: ToolReport;
}

/*
 * The plan's shape, checked by hand rather than with a zod schema: it is read before anything
 * else of the CLI loads, and zod (inlined in the build, beside the copy the MCP SDK loads) would
 * cost more of a start than the rest of the plan's reading.
 */
const isString = (v: unknown): v is string => typeof v === 'string';
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const TOOL_SOURCES = ['plugin', 'mcp', 'script', 'kernel'];

function isInput(v: unknown): v is Input {
  return Array.isArray(v) && v.length === 3 && isString(v[0]) && typeof v[1] === 'number' && typeof v[2] === 'number';
}

function isTool(v: unknown): v is ToolInfo {
  return isRecord(v) && isString(v.name) && isString(v.plugin) && isString(v.export) && isString(v.description) && TOOL_SOURCES.includes(v.source as string) && isRecord(v.input_schema);
}

function isPlan(v: unknown): v is ToolPlan {
  if (!isRecord(v) || v.format !== FORMAT || !isString(v.version) || !isString(v.key)) return false;
  const { persona, inputs, report } = v;
  if (!isRecord(persona) || !isString(persona.id) || !isString(persona.file)) return false;
  if (!Array.isArray(inputs) || !inputs.every(isInput) || !isRecord(report)) return false;
  return Array.isArray(report.tools) && report.tools.every(isTool) && Array.isArray(report.problems) && report.problems.every((p) => isRecord(p) && isString(p.plugin) && isString(p.error));
}

/** The variables that can change what a persona's tools are (the plugin and skill paths, the state folder). */
function relevantEnv(env: Readonly<Record<string, string | undefined>>): [string, string][] {
  return Object.entries(env)
    .filter((e): e is [string, string] => typeof e[1] === 'string' && /^(RUNTIMECTL|SCIDEX)_/.test(e[0]))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** One invocation of `mcp serve`, as a hash: the same flags, folder and variables give the same key. */
export function invocationKey(values: ServeValues, io: { cwd: string; env: Readonly<Record<string, string | undefined>> }): string {
  const resolve = (d: string) => path.resolve(io.cwd, d);
  const persona = values.persona === undefined ? null : looksLikeFile(values.persona) ? resolve(values.persona) : values.persona;
  const invocation = {
    cwd: io.cwd,
    persona,
    stateDir: values['state-dir'] === undefined ? null : resolve(values['state-dir']),
    plugins: (values['plugins-dir'] ?? []).map(resolve),
    skills: (values['skills-dir'] ?? []).map(resolve),
    env: relevantEnv(io.env),
  };
  return createHash('sha256').update(JSON.stringify(invocation)).digest('hex');
}

/** A path's input from its stat (one stat per path: the folder walk reads isDirectory from the same one). */
function inputOf(file: string, st: Stats | undefined): Input {
  return st ? [file, st.size, st.mtimeMs] : [file, -1, -1];
}

function statOf(file: string): Input {
  return inputOf(file, statSync(file, { throwIfNoEntry: false }));
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir).map((name) => path.join(dir, name));
  } catch {
    return [];
  }
}

/** The inputs of a listing: the files as they are, and each folder with what is in it two levels down. */
export function planInputs(files: readonly string[], folders: readonly string[]): Input[] {
  const inputs = [...new Set([...files, BUILD_RECORD])].map(statOf);
  for (const root of new Set(folders)) {
    inputs.push(statOf(root));
    for (const child of entries(root)) {
      const st = statSync(child, { throwIfNoEntry: false });
      inputs.push(inputOf(child, st));
      if (st?.isDirectory()) for (const file of entries(child)) inputs.push(statOf(file));
    }
  }
  return inputs;
}

function unchanged(inputs: readonly Input[]): boolean {
  return inputs.every(([file, size, mtime]) => {
    const [, nowSize, nowMtime] = statOf(file);
    return nowSize === size && nowMtime === mtime;
  });
}

/** The plan in the persona folder when it is for this invocation and nothing it was made from changed; else undefined. */
export function readToolPlan(personaDir: string, key: string): ToolPlan | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(personaDir, TOOL_PLAN_FILE), 'utf8');
  } catch {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlan(value)) return undefined;
  const plan = value;
  return plan.version === KERNEL_VERSION && plan.key === key && unchanged(plan.inputs) ? plan : undefined;
}

/**
 * Writes the plan (temp file and rename: a reader sees the old plan or the new one). The
 * inputs are read before the caller listed, so an edit made while it listed leaves a plan
 * that no longer matches rather than one that hides the edit.
 */
export function writeToolPlan(personaDir: string, plan: Omit<ToolPlan, 'format' | 'version'>): void {
  const full: ToolPlan = { format: FORMAT, version: KERNEL_VERSION, ...plan };
  replaceFileDurably(path.join(personaDir, TOOL_PLAN_FILE), `${JSON.stringify(full)}\n`, { directorySync: 'when-new' });
}

/** Whether two listings would be served the same (the client needs telling when not). */
export function sameReport(a: ToolReport, b: ToolReport): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
