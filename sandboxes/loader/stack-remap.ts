/**
 * Stack traces as the script's author wrote the script: a frame in the bundle
 * (`file:///x/mod.ts:57:9`, a position in esbuild's output) becomes the position in the
 * source file it came from (`file:///x/lib.ts:3:9`), through the source map kept beside the
 * bundle; frames of the shim itself (`runtimectl:shim`, parts evaluated by it) are dropped,
 * as Deno's own frames are its business. Used where the kernel prints a stack: an uncaught
 * error of `sandbox run`, a failing test of `sandbox test`.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import { WRAPPER_LINES } from './bundle.ts';

export interface StackMapper {
  /** a position in the bundle (1-based line, 1-based column) → the source position, if mapped */
  position(line: number, column: number): { file: string; line: number; column: number } | undefined;
  /** the stack with positions mapped and shim frames removed */
  stack(stack: string): string;
  /** Deno's code frame for a source position: the line and a caret under the column */
  codeFrame(file: string, line: number, column: number): string | undefined;
}

const FRAME = /\(?((?:file:\/\/)[^\s()]+?):(\d+):(\d+)\)?$/;

/** `bundleUrl` is the filename the bundle was compiled under (the entry's file URL). */
export function stackMapper(bundleUrl: string, mapText: string | undefined, mapDir: string): StackMapper {
  let map: TraceMap | undefined;
  try {
    map = mapText ? new TraceMap(mapText, pathToFileURL(`${mapDir}${path.sep}`).href) : undefined;
  } catch {
    map = undefined;
  }
  const sources = new Map<string, string[]>();
  if (map) {
    const raw = JSON.parse(mapText!) as { sources: string[]; sourcesContent?: (string | null)[] };
    raw.sources.forEach((source, i) => {
      const content = raw.sourcesContent?.[i];
      if (typeof content === 'string') sources.set(path.resolve(mapDir, source), content.split('\n'));
    });
  }
  const position = (line: number, column: number) => {
    if (!map) return undefined;
    const found = originalPositionFor(map, { line: line - WRAPPER_LINES, column: Math.max(0, column - 1) });
    if (!found.source || found.line === null) return undefined;
    const file = found.source.startsWith('file:') ? fileURLToPath(found.source) : path.resolve(mapDir, found.source);
    return { file, line: found.line, column: (found.column ?? 0) + 1 };
  };
  return {
    position,
    stack(stack: string): string {
      const out: string[] = [];
      for (const line of stack.split('\n')) {
        if (/^\s+at /.test(line)) {
          if (/runtimectl:shim|eval at requirePart/.test(line)) continue;
          const m = FRAME.exec(line);
          if (m && m[1] === bundleUrl) {
            const mapped = position(Number(m[2]), Number(m[3]));
            if (mapped) {
              out.push(line.slice(0, m.index) + line.slice(m.index).replace(FRAME, (whole) => `${whole.startsWith('(') ? '(' : ''}${pathToFileURL(mapped.file).href}:${mapped.line}:${mapped.column}${whole.endsWith(')') ? ')' : ''}`));
              continue;
            }
          }
        }
        out.push(line);
      }
      return out.join('\n');
    },
    codeFrame(file: string, line: number, column: number): string | undefined {
      const text = sources.get(file)?.[line - 1];
      if (text === undefined) return undefined;
      return `${text}\n${' '.repeat(Math.max(0, column - 1))}^`;
    },
  };
}

/** The first frame of a stack that is the script's own code, mapped: where an error came from. */
export function firstUserFrame(mapper: StackMapper, stack: string): { file: string; line: number; column: number } | undefined {
  for (const line of mapper.stack(stack).split('\n')) {
    const m = FRAME.exec(line.trim());
    if (m && /^\s+at /.test(line)) {
      try {
        return { file: fileURLToPath(m[1]!), line: Number(m[2]), column: Number(m[3]) };
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** An uncaught-error report as Deno prints it: mapped frames, and the code frame of the first one above them. */
export function mapUncaughtReport(mapper: StackMapper, report: string): string {
  const mapped = mapper.stack(report);
  const where = firstUserFrame(mapper, report);
  const frame = where ? mapper.codeFrame(where.file, where.line, where.column) : undefined;
  if (!frame) return mapped;
  const lines = mapped.split('\n');
  const at = lines.findIndex((l) => /^\s+at /.test(l));
  if (at === -1) return mapped;
  lines.splice(at, 0, ...frame.split('\n'));
  return lines.join('\n');
}
