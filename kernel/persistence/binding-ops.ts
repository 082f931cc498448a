/**
 * The storage bindings as one op extension (extension.ts): what a persistence backend or the
 * ledger plugin is served (`storage.files`, `storage.sqlite`, their event placements,
 * `storage.ledger`, `storage.postgres`). The kernel's plugin instances do not name it: the
 * composition that runs storage plugins hands it in with its kit
 * (features/persistence/shared-instance.ts), so no other isolate's broker can even name a
 * storage op. Kept in one file beside the ops so the extension moves with them.
 */
import type { Extension } from '../broker/extension.ts';
import type { OpDefinition } from '../broker/op.ts';
import { EVENT_BINDING_OPS } from './event-bindings.ts';
import { FILE_BINDING_OPS } from './file-bindings.ts';
import { LEDGER_BINDING_OPS } from './ledger-bindings.ts';
import { POSTGRES_BINDING_OPS } from './postgres/pg-bindings.ts';
import { SQLITE_BINDING_OPS } from './sqlite-bindings.ts';

export const PERSISTENCE_BINDING_OPS: Extension = {
  name: 'persistence.bindings',
  ops: [...FILE_BINDING_OPS, ...SQLITE_BINDING_OPS, ...EVENT_BINDING_OPS, ...LEDGER_BINDING_OPS, ...POSTGRES_BINDING_OPS] as OpDefinition[],
};
