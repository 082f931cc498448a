/** Every operation a sandboxed plugin or script can ask the broker for. */
import type { OpDefinition } from '../op.ts';
import { envDelete, envGet, envSet, envToObject } from './env.ts';
import { clockMonotonic, clockNow, clockOrigin, randomBytesOp, randomSeed } from './entropy.ts';
import { cwd, mkdir, readDir, readFile, readTextFile, realPath, remove, stat, writeFile } from './fs.ts';
import { netFetch } from './net.ts';
import { FILE_OPS } from './fs-file.ts';
import { PROCESS_OPS } from './process.ts';
import { SPAWN_OPS } from './run-spawn.ts';
import { testPermissions } from './test-permissions.ts';
import { subtleCall } from './subtle.ts';
import { copyFile, copyFileSync } from './fs-copy.ts';
import { chmod, chown, link, makeTempDir, makeTempFile, readLink, rename, symlink, truncate, umask, utime, watchFs } from './fs-more.ts';
import { netClose, netRead } from './net-body.ts';
import { permissionsQuery, permissionsRequest, permissionsRevoke } from './permissions.ts';
import { runOutput } from './run.ts';
import { BINDING_OPS } from './bindings.ts';
import { FILE_BINDING_OPS } from '../../persistence/file-bindings.ts';
import { SQLITE_BINDING_OPS } from '../../persistence/sqlite-bindings.ts';
import { EVENT_BINDING_OPS } from '../../persistence/event-bindings.ts';
import { LEDGER_BINDING_OPS } from '../../persistence/ledger-bindings.ts';
import { POSTGRES_BINDING_OPS } from '../../persistence/postgres/pg-bindings.ts';
import { GATE_BINDING_OPS } from './gate-bindings.ts';

export const OPS: ReadonlyMap<string, OpDefinition> = new Map(
  [
    readTextFile, readFile, writeFile, readDir, stat, mkdir, remove, realPath, cwd,
    copyFile, copyFileSync, rename, link, symlink, readLink, chmod, chown, truncate, utime, makeTempDir, makeTempFile, umask, watchFs,
    envGet, envSet, envDelete, envToObject,
    randomBytesOp, randomSeed, clockNow, clockMonotonic, clockOrigin,
    permissionsQuery, permissionsRequest, permissionsRevoke,
    runOutput, netFetch, netRead, netClose,
    ...FILE_OPS,
    ...PROCESS_OPS,
    ...SPAWN_OPS,
    testPermissions,
    subtleCall,
    ...BINDING_OPS,
    ...FILE_BINDING_OPS, ...SQLITE_BINDING_OPS, ...EVENT_BINDING_OPS, ...LEDGER_BINDING_OPS, ...POSTGRES_BINDING_OPS,
    ...GATE_BINDING_OPS,
  ].map((op) => [op.name, op as OpDefinition]),
);
