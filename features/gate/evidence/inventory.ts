/**
 * Lists and hashes the files of an evidence package, in a stable order. A symlink is
 * hashed by its target text (never followed), so a package that holds a link stays
 * verifiable without reading anything outside it.
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { sha256 } from '../../../sandboxes/loader/bundle.ts';
import type { PackageFile } from './manifest-schema.ts';

export function hashEntry(file: string): { type: 'file' | 'symlink'; bytes: number; sha256: string } | { type: 'other' } {
  const info = lstatSync(file);
  if (info.isSymbolicLink()) return { type: 'symlink', bytes: 0, sha256: `sha256:${sha256(readlinkSync(file))}` };
  if (info.isFile()) {
    const data = readFileSync(file);
    return { type: 'file', bytes: data.length, sha256: `sha256:${sha256(data)}` };
  }
  return { type: 'other' };
}

/** Relative POSIX paths of every file and symlink under `root`, sorted; folders are walked, not listed. */
export function listPackageFiles(root: string, skip: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const relPath = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (skip.has(relPath)) continue;
      if (entry.isDirectory()) walk(relPath);
      else out.push(relPath);
    }
  };
  walk('');
  return out.sort();
}

export function inventory(root: string, skip: ReadonlySet<string>): PackageFile[] {
  const files: PackageFile[] = [];
  for (const rel of listPackageFiles(root, skip)) {
    const hashed = hashEntry(path.join(root, rel));
    if (hashed.type === 'other') continue;
    files.push({ path: rel, ...hashed });
  }
  return files;
}
