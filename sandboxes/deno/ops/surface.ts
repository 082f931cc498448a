/**
 * Deno's surface as one op extension (fs, env, clock and randomness, permissions, fetch,
 * process, test permissions, WebCrypto): what `Deno.*` and the web APIs ask the broker for,
 * besides the subprocess ops (sandboxes/deno). The kernel does not compose it: the sandbox
 * kit brings it (sandboxes/deno DENO_EXTENSIONS), as Deno's runtime composes ext/fs.
 */
import type { Extension } from '../../../kernel/broker/extension.ts';
import type { OpDefinition } from '../../../kernel/broker/op.ts';
import { envDelete, envGet, envSet, envToObject } from './env.ts';
import { clockMonotonic, clockNow, clockOrigin, randomBytesOp, randomSeed } from './entropy.ts';
import { cwd, mkdir, readDir, readFile, readTextFile, realPath, remove, stat, writeFile } from './fs.ts';
import { netFetch } from './net.ts';
import { FILE_OPS } from './fs-file.ts';
import { PROCESS_OPS } from './process.ts';
import { testPermissions } from './test-permissions.ts';
import { subtleCall } from './subtle.ts';
import { copyFile, copyFileSync } from './fs-copy.ts';
import { chmod, chown, link, makeTempDir, makeTempFile, readLink, rename, symlink, truncate, umask, utime, watchFs } from './fs-more.ts';
import { netClose, netRead } from './net-body.ts';
import { permissionsQuery, permissionsRequest, permissionsRevoke } from './permissions.ts';

export const DENO_SURFACE_OPS: Extension = {
  name: 'deno',
  ops: [
    readTextFile, readFile, writeFile, readDir, stat, mkdir, remove, realPath, cwd,
    copyFile, copyFileSync, rename, link, symlink, readLink, chmod, chown, truncate, utime, makeTempDir, makeTempFile, umask, watchFs,
    envGet, envSet, envDelete, envToObject,
    randomBytesOp, randomSeed, clockNow, clockMonotonic, clockOrigin,
    permissionsQuery, permissionsRequest, permissionsRevoke,
    netFetch, netRead, netClose,
    ...FILE_OPS,
    ...PROCESS_OPS,
    testPermissions,
    subtleCall,
  ] as OpDefinition[],
};
