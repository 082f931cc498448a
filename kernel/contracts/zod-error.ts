/**
 * A zod failure as one field path and reason: how the kernel words a refusal of a manifest or
 * an input, published as a contract so a plugin that validates with zod (the ledger) words its
 * refusals the same way. Isolate-safe (nothing but zod's types; no file system, no YAML), so a
 * plugin imports it by value (test/kernel/layering-rules.ts: ISOLATE_SAFE_ROOT).
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
  return describeIssue(error.issues[0]);
}

/**
 * Every issue of a failed parse, each as `field.path: reason`, in the order zod found them:
 * a file with five mistakes is told all five at once, not one per attempt. An issue naming
 * several unknown keys is one entry per key; the same field and reason twice is one entry.
 */
export function describeZodIssues(error: z.ZodError): { field: string; reason: string }[] {
  const out: { field: string; reason: string }[] = [];
  const seen = new Set<string>();
  const add = (entry: { field: string; reason: string }) => {
    const key = `${entry.field}\u0000${entry.reason}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(entry);
  };
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys' && issue.keys.length > 1) {
      for (const key of issue.keys) add({ field: formatFieldPath([...issue.path, key]), reason: `unknown key "${key}" (not in the schema)` });
    } else add(describeIssue(issue));
  }
  return out.length > 0 ? out : [describeIssue(undefined)];
}

type Issue = z.ZodError['issues'][number];

function describeIssue(found: Issue | undefined): { field: string; reason: string } {
  let issue = found;
  if (!issue) return { field: '(root)', reason: 'invalid' };
  // A value that fits no branch of a union: name the fault of the branch it came closest to
  // (the deepest first issue), not zod's bare "Invalid input" (a union's own message stands).
  while (issue.code === 'invalid_union' && issue.errors.length > 0 && issue.message === 'Invalid input') {
    const prefix = issue.path;
    const best: Issue | undefined = issue.errors
      .map((branch) => branch[0])
      .filter((i): i is Issue => i !== undefined)
      .sort((a, b) => b.path.length - a.path.length)[0];
    if (!best) break;
    issue = { ...best, path: [...prefix, ...best.path] } as Issue;
  }
  // An unknown key is named as the field itself, not as its parent.
  if (issue.code === 'unrecognized_keys' && issue.keys.length > 0) {
    return { field: formatFieldPath([...issue.path, issue.keys[0]!]), reason: `unknown key "${issue.keys[0]!}" (not in the schema)` };
  }
  return { field: formatFieldPath(issue.path), reason: issue.message };
}
