/** The kernel's version (part of cache keys and evidence) and its command's entry, read once from package.json. */
import { readFileSync } from 'node:fs';
import path from 'node:path';

// Inside a sandbox host process the kernel code is a CommonJS bundle without
// import.meta; the pool passes the project root in RTC_PROJECT_ROOT instead.
const here: string | undefined = import.meta.dirname;
export const PROJECT_ROOT = here ? path.resolve(here, '..') : path.resolve(process.env.RTC_PROJECT_ROOT ?? process.cwd());
const manifest = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string; bin: { runtimectl: string } };
export const KERNEL_VERSION: string = manifest.version;
/**
 * The `runtimectl` command's entry file, as package.json's `bin` declares it (how npm finds the
 * command): what a feature runs to start this install's CLI in a child process (the harness's MCP
 * server, `Deno.execPath()`). Read from the manifest, so no layer below the composition names bin/.
 */
export const CLI_ENTRY: string = path.join(PROJECT_ROOT, manifest.bin.runtimectl);
