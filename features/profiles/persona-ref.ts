/**
 * What a `--persona` ref is, decided from its text alone: `mcp serve` asks before it loads the
 * profile reader (features/mcp/planned-serve.ts), so this module imports nothing but path.
 */
import path from 'node:path';

/** Whether a `--persona` ref names a file (a path, or a .yaml/.json name) rather than an id. */
export function looksLikeFile(ref: string): boolean {
  return ref.includes('/') || ref.includes(path.sep) || /\.(ya?ml|json)$/.test(ref);
}
