/**
 * The storage bindings as one op extension (kernel/broker/extension.ts): what a persistence
 * backend or the ledger plugin is served (`storage.files`, `storage.sqlite`, their event
 * placements, `storage.ledger`, `storage.postgres`). The kernel names none of it (it knows only
 * the grant's type, kernel/broker/op.ts StorageGrant): the composition that runs storage plugins
 * hands it in with its kit (features/persistence/shared-instance.ts), so no other isolate's
 * broker can even name a storage op.
 */
import type { Extension } from '../../../kernel/broker/extension.ts';
import type { OpDefinition } from '../../../kernel/broker/op.ts';
import { EVENT_BINDING_OPS } from './event-bindings.ts';
import { FILE_BINDING_OPS } from './file-bindings.ts';
import { LEDGER_BINDING_OPS } from './ledger-bindings.ts';
import { POSTGRES_BINDING_OPS } from './postgres/pg-bindings.ts';
import { SQLITE_BINDING_OPS } from './sqlite-bindings.ts';

export const PERSISTENCE_BINDING_OPS: Extension = {
  name: 'persistence.bindings',
  ops: [...FILE_BINDING_OPS, ...SQLITE_BINDING_OPS, ...EVENT_BINDING_OPS, ...LEDGER_BINDING_OPS, ...POSTGRES_BINDING_OPS] as OpDefinition[],
};
