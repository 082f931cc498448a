/**
 * The ops this sandbox brings to the kernel's broker, as Deno's runtime composes its
 * extensions: the subprocess ops (`Deno.Command` output and spawn, each child in the OS
 * sandbox planned from the grant: ops/run.ts, ops/run-spawn.ts). The composition hands them
 * in with the kit (SandboxKit.extensions); a script run takes the whole table (DENO_OPS).
 */
import { opTable, type Extension, type OpTable } from '../../kernel/broker/extension.ts';
import { BUILT_IN_OPS } from '../../kernel/broker/ops/index.ts';
import type { OpDefinition } from '../../kernel/broker/op.ts';
import { SPAWN_OPS } from './ops/run-spawn.ts';
import { runOutput } from './ops/run.ts';

export const DENO_RUN_OPS: Extension = { name: 'deno.run', ops: [runOutput, ...SPAWN_OPS] as OpDefinition[] };

/** Every op a script or plugin sandboxed here may ask for: the kernel's built-in ones and this folder's. */
export const DENO_OPS: OpTable = opTable([BUILT_IN_OPS, DENO_RUN_OPS]);
