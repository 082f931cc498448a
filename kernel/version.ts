/** The kernel's version, read once from package.json: part of cache keys and evidence. */
import { readFileSync } from 'node:fs';
import path from 'node:path';

// Inside a sandbox host process the kernel code is a CommonJS bundle without
// import.meta; the pool passes the project root in RTC_PROJECT_ROOT instead.
const here: string | undefined = import.meta.dirname;
export const PROJECT_ROOT = here ? path.resolve(here, '..') : path.resolve(process.env.RTC_PROJECT_ROOT ?? process.cwd());
export const KERNEL_VERSION: string = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
