/** The kernel's version, read once from package.json: part of cache keys and evidence. */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const PROJECT_ROOT = path.resolve(import.meta.dirname, '..');
export const KERNEL_VERSION: string = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
