/**
 * What a `--persona` ref is, decided from its text alone, and where an id's profile is:
 * `mcp serve` asks before it loads the profile reader (features/mcp/early-serve.ts), so this
 * module imports nothing but path and the project root.
 */
import path from 'node:path';
import { PROJECT_ROOT } from '../../kernel/version.ts';

/** The example personas' profiles: `--persona ID` is `<this folder>/ID.yaml`. */
export const PERSONAS_DIR = path.join(PROJECT_ROOT, 'policies', 'personas');

/** Whether a `--persona` ref names a file (a path, or a .yaml/.json name) rather than an id. */
export function looksLikeFile(ref: string): boolean {
  return ref.includes('/') || ref.includes(path.sep) || /\.(ya?ml|json)$/.test(ref);
}
