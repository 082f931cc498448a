/**
 * A zod failure as one field path and reason. Pure (no file system, no YAML), so code that
 * runs inside an isolate (the ledger plugin) can word its refusals the way manifests do.
 */
import type { z } from 'zod';

/** `a.b[2].c` from a zod issue path. */
export function formatFieldPath(parts: readonly PropertyKey[]): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(root)' : out;
}

/** The first issue of a failed parse, as `field.path: reason`. */
export function describeZodError(error: z.ZodError): { field: string; reason: string } {
  const issue = error.issues[0];
  if (!issue) return { field: '(root)', reason: 'invalid' };
  // An unknown key is named as the field itself, not as its parent.
  if (issue.code === 'unrecognized_keys' && issue.keys.length > 0) {
    return { field: formatFieldPath([...issue.path, issue.keys[0]!]), reason: `unknown key "${issue.keys[0]!}" (not in the schema)` };
  }
  return { field: formatFieldPath(issue.path), reason: issue.message };
}
