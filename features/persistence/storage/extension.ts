/**
 * The storage binding ops as one op extension (kernel/broker/extension.ts), as Deno composes
 * `ext/*` crates: the composition root hands it into the kernel with the others, and the kernel
 * names none of them. Every broker of the composition can then name these ops, but only a
 * broker whose context carries a StorageGrant (a persistence backend or the ledger:
 * shared-instance.ts) is served; any other call is refused as the binding (binding-kit.ts).
 */
import type { Extension } from '../../../kernel/broker/extension.ts';
import type { OpDefinition } from '../../../kernel/broker/op.ts';
import { EVENT_BINDING_OPS } from './event-bindings.ts';
import { FILE_BINDING_OPS } from './file-bindings.ts';
import { LEDGER_BINDING_OPS } from './ledger-bindings.ts';
import { POSTGRES_BINDING_OPS } from './postgres/pg-bindings.ts';
import { SQLITE_BINDING_OPS } from './sqlite-bindings.ts';

export const STORAGE_BINDING_OPS: Extension = {
  name: 'persistence.storage',
  ops: [...FILE_BINDING_OPS, ...SQLITE_BINDING_OPS, ...EVENT_BINDING_OPS, ...LEDGER_BINDING_OPS, ...POSTGRES_BINDING_OPS] as OpDefinition[],
};
