/** The digests evidence is identified by, written `sha256:<hex>` like the review queue's. */
import { sha256 } from '../../../kernel/build/bundle.ts';

export function digestOf(data: string | Uint8Array): string {
  return `sha256:${sha256(data)}`;
}

/**
 * The digest of a folder's contents: sha256 of one line `<sha256> <path>\n` per file,
 * sorted by path (byte order), like `sha256sum` output. Renaming a file changes it too.
 */
export function treeDigest(entries: readonly { path: string; sha256: string }[]): string {
  const lines = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map((e) => `${e.sha256} ${e.path}\n`);
  return digestOf(lines.join(''));
}
