/**
 * `storage.ledger`: the task ledger's rows, through the persona's persistence backend. The
 * ledger plugin (plugins/ledger) holds the ledger's rules and an in-memory copy of its rows;
 * it reads what changed and commits each change through these two ops, which the kernel
 * forwards to the backend plugin the persona's state is in (its `ledgerLoad` and
 * `ledgerCommit` exports), for the one ledger file the session was opened on. So the ledger
 * never touches storage itself, and it is kept wherever the persona's state is: files, a
 * sqlite database, Postgres rows.
 *
 *   load    { since, repair, init } → what changed since version `since` (null: everything),
 *           as the backend keeps it (plugins/ledger/model/row-state.ts RowLoad: a change log's
 *           new lines, or every row); a writer's load (`repair`) creates a missing ledger
 *           (a change log starts with `init`, its header line) and cuts a torn last line
 *   commit  { base, seq, change, ops, note? } → { ok: true, version } once durable, or
 *           { ok: false } when the ledger changed since `base` (the plugin reloads and retries)
 */
import { DenoOpError } from '../../../kernel/broker/deno-error.ts';
import { noSession, optInt, storageOp } from './binding-kit.ts';
import type { StorageSession } from './storage-session.ts';

function rows(session: StorageSession) {
  const target = session.ledgerRows;
  if (target === undefined) throw noSession('storage.ledger', `Requires a ledger session: persona ${session.personaId} has no ledger open on this session`);
  return target;
}

export const ledgerLoad = storageOp({
  name: 'storage.ledger.load',
  binding: 'storage.ledger',
  mode: 'sync',
  parse(o) {
    const init = o.init ?? '';
    if (typeof init !== 'string' || init.length > 1024) throw new DenoOpError('TypeError', '"init" must be a string of at most 1024 characters');
    return { since: o.since === null || o.since === undefined ? null : optInt(o, 'since')!, repair: o.repair === true, init };
  },
  run(session, a) {
    if (a.repair && session.readonly) throw new DenoOpError('Error', 'the ledger was opened read-only', 'RTC_ERR_PERSISTENCE_READONLY');
    const target = rows(session);
    return target.load({ db: target.db, since: a.since, repair: a.repair, init: a.init });
  },
});

export const ledgerCommit = storageOp({
  name: 'storage.ledger.commit',
  binding: 'storage.ledger',
  mode: 'sync',
  parse(o) {
    if (typeof o.change !== 'string' || o.change === '' || o.change.length > 100) throw new DenoOpError('TypeError', '"change" must be a label of 1 to 100 characters');
    if (!Array.isArray(o.ops)) throw new DenoOpError('TypeError', '"ops" must be a list');
    if (o.note !== undefined && (typeof o.note !== 'string' || o.note.length > 500)) throw new DenoOpError('TypeError', '"note" must be a string of at most 500 characters');
    return { base: optInt(o, 'base') ?? 0, seq: optInt(o, 'seq', 1) ?? 1, change: o.change, ops: o.ops as unknown[], ...(typeof o.note === 'string' ? { note: o.note } : {}) };
  },
  run(session, a) {
    if (session.readonly) throw new DenoOpError('Error', 'the ledger was opened read-only', 'RTC_ERR_PERSISTENCE_READONLY');
    const target = rows(session);
    return target.commit({ db: target.db, ...a });
  },
});

export const LEDGER_BINDING_OPS = [ledgerLoad, ledgerCommit];
