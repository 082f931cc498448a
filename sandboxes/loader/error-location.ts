/**
 * Errors thrown inside a plugin point at the plugin's own file and line. The isolate's stack
 * names the bundle (`plugin:<id>:LINE:COL`) and the Deno shim's frames (`runtimectl:shim`);
 * with the bundle's source map (kept beside it by esbuild) each plugin frame becomes
 * `<plugin folder>/<source file>:LINE:COL` and the shim's frames are dropped. The first plugin
 * frame is the error's `at`, which its one-line form shows.
 */
import { SourceMap } from 'node:module';
import path from 'node:path';
import { isKernelError, kernelError, type KernelError } from '../../kernel/errors.ts';
import { WRAPPER_LINES as WRAP_LINES } from './bundle.ts';

export interface MappedStack {
  /** `tool-words/mod.ts:3:27`: the first frame in the plugin's own code */
  at?: string;
  /** the stack with plugin frames mapped and the shim's frames left out */
  stack: string;
}

const FRAME = /^(\s*at\s+(?:(.*?)\s+\()?)([^()\s]+?):(\d+):(\d+)(\)?)$/;

/** Maps a stack from the isolate; `label` is the script name (`plugin:<id>`), `dir` the plugin folder. */
export function mapPluginStack(stack: string, label: string, map: SourceMap | undefined, dir: string): MappedStack {
  const folder = path.basename(dir);
  let at: string | undefined;
  const lines: string[] = [];
  for (const line of stack.split('\n')) {
    const m = FRAME.exec(line);
    if (!m) {
      lines.push(line);
      continue;
    }
    const [, head, , file, lineText, colText, tail] = m;
    if (file === label) {
      const entry = map?.findEntry(Number(lineText) - 1 - WRAP_LINES, Number(colText) - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number } | undefined;
      if (entry?.originalSource !== undefined && entry.originalLine !== undefined) {
        const source = entry.originalSource.replace(/^file:\/\//, '');
        const rel = path.isAbsolute(source) ? path.relative(dir, source) : source;
        const where = `${path.posix.join(folder, rel.split(path.sep).join('/'))}:${entry.originalLine + 1}:${(entry.originalColumn ?? 0) + 1}`;
        at ??= where;
        lines.push(`${head}${where}${tail}`);
      } else lines.push(line);
      continue;
    }
    if (file!.startsWith('runtimectl:')) continue; // the shim's own frames: not the author's code
    lines.push(line);
  }
  return { ...(at !== undefined ? { at } : {}), stack: lines.join('\n') };
}

/** The same error with its location: `at` in the details (and the one line), the stack mapped. */
export function locateError(error: unknown, label: string, map: SourceMap | undefined, dir: string): unknown {
  if (!isKernelError(error) || error.code !== 'RTC_ERR_SANDBOX_SCRIPT' || typeof error.details.stack !== 'string') return error;
  const mapped = mapPluginStack(error.details.stack, label, map, dir);
  const located: KernelError = kernelError(error.code, error.message, { details: { ...error.details, stack: mapped.stack, ...(mapped.at ? { at: mapped.at } : {}) }, cause: error.cause });
  return located;
}

/** A parsed source map, or undefined when there is none or it does not parse. */
export function parseSourceMap(text: string | undefined): SourceMap | undefined {
  if (text === undefined) return undefined;
  try {
    return new SourceMap(JSON.parse(text) as ConstructorParameters<typeof SourceMap>[0]);
  } catch {
    return undefined;
  }
}
