/**
 * Proposed file contents (profile and plugin changes), stored by sha256 under
 * `review/blobs/<hex>` so the log carries a digest, not the file: a content store
 * (features/trace-store/content-store.ts), written atomically and checked when read.
 */
import path from 'node:path';
import { contentStore, type ContentStore } from '../trace-store/content-store.ts';
import { BLOBS_RELATIVE } from './paths.ts';

function blobsOf(personaDir: string): ContentStore {
  return contentStore(path.join(personaDir, BLOBS_RELATIVE), { base: personaDir, code: 'RTC_ERR_REVIEW_BLOB', what: 'the content of a proposed change' });
}

/** `review/blobs/<hex>` for a digest: relative to the persona directory. */
export function blobRelativePath(digest: string): string {
  return `${BLOBS_RELATIVE}/${digest.slice('sha256:'.length)}`;
}

export function storeBlob(personaDir: string, bytes: Buffer): { digest: string; relative: string } {
  return blobsOf(personaDir).put(bytes);
}

/** The blob's bytes, checked against its digest. */
export function readBlob(personaDir: string, digest: string): Buffer {
  return blobsOf(personaDir).get(digest);
}
