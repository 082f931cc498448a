/**
 * The ops this sandbox brings to the kernel's broker, as Deno's runtime composes its
 * extensions: Deno's surface (fs, env, clock, permissions, fetch, process, WebCrypto) and the
 * subprocess ops (`Deno.Command` output and spawn, each child in the OS sandbox planned from
 * the grant: ops/run.ts, ops/run-spawn.ts). The kit hands them in (SandboxKit.extensions,
 * sandboxes/index.ts); a script run answers from their table alone (DENO_OPS): a script has
 * no bindings.
 */
import { opTable, type Extension, type OpTable } from '../../kernel/broker/extension.ts';
import { DENO_SURFACE_OPS } from './ops/surface.ts';
import type { OpDefinition } from '../../kernel/broker/op.ts';
import { SPAWN_OPS } from './ops/run-spawn.ts';
import { runOutput } from './ops/run.ts';

export const DENO_RUN_OPS: Extension = { name: 'deno.run', ops: [runOutput, ...SPAWN_OPS] as OpDefinition[] };

/** The Deno extensions, in the order a table lists them. */
export const DENO_EXTENSIONS: readonly Extension[] = [DENO_SURFACE_OPS, DENO_RUN_OPS];

/** Every op a script sandboxed here may ask for (a plugin's table adds its bindings: features/plugin-host/plugin-instance.ts). */
export const DENO_OPS: OpTable = opTable(DENO_EXTENSIONS);
