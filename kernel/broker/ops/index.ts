/**
 * The kernel's built-in op extension: every operation a sandboxed plugin or script can ask
 * the broker for except those the sandbox brings (the subprocess ops: sandboxes/deno). A
 * broker answers from an OpTable of this and the composition's extensions (extension.ts).
 */
import type { Extension } from '../extension.ts';
import type { OpDefinition } from '../op.ts';
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
import { BINDING_OPS } from './bindings.ts';
import { STORAGE_BINDING_OPS } from '../../../features/persistence/storage/extension.ts';
import { GATE_BINDING_OPS } from './gate-bindings.ts';

export const BUILT_IN_OPS: Extension = {
  name: 'builtin',
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
    ...BINDING_OPS,
    ...STORAGE_BINDING_OPS.ops,
    ...GATE_BINDING_OPS,
  ] as OpDefinition[],
};
