/** The digests evidence is identified by, written `sha256:<hex>` like the review queue's. */
import { sha256 } from '../../../sandboxes/loader/bundle.ts';

export function digestOf(data: string | Uint8Array): string {
  return `sha256:${sha256(data)}`;
}

interface TreeEntry {
  path: string;
  type: 'file' | 'symlink';
  sha256: string;
}

/** Sorted by the path's UTF-8 bytes, so the order is the same in every language. */
function sortedByPath<T extends { path: string }>(entries: readonly T[]): T[] {
  return [...entries].sort((a, b) => Buffer.compare(Buffer.from(a.path, 'utf8'), Buffer.from(b.path, 'utf8')));
}

/**
 * The digest of a folder's contents (evidence format 2): sha256 of the JSON array of
 * `[path, type, sha256]` triples, sorted by path. JSON escapes every control character and
 * quote, so no file name can forge another entry (a name holding a newline and a fake
 * `sha256:… name` line made two different trees digest alike under the line format), and
 * the type keeps a file apart from a symlink whose target text has the same bytes.
 */
export function treeDigest(entries: readonly TreeEntry[]): string {
  return digestOf(JSON.stringify(sortedByPath(entries).map((e) => [e.path, e.type, e.sha256])));
}

/**
 * The digest evidence format 1 recorded: sha256 of one line `<sha256> <path>\n` per file.
 * Ambiguous (see treeDigest); kept only so packages written in format 1 still verify.
 */
export function legacyTreeDigest(entries: readonly { path: string; sha256: string }[]): string {
  const lines = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map((e) => `${e.sha256} ${e.path}\n`);
  return digestOf(lines.join(''));
}
