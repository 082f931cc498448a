/**
 * The ledger as a part of a persona's persistence backend (features/persistence/parts.ts):
 * what the loop's provider prepares (the ledger plugin's isolate), and how `persistence export`
 * moves the ledger from one backend to another.
 *
 *  - rows on one side (postgres): copied through the backend-neutral export and read back;
 *  - both files, one persona: converted in its own place (convert.ts), or kept when it is
 *    already in the target's format;
 *  - else copied through the export and read back.
 */
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { kernelError } from '../../kernel/errors.ts';
import type { PersonaBackend } from '../persistence/backend.ts';
import type { BackendPart } from '../persistence/parts.ts';
import type { LedgerExport } from '../../plugins/ledger/model/records.ts';
import { ledgerOf } from './access.ts';
import { convertLedgerInPlace } from './convert.ts';
import { detectLedgerFormat } from './format.ts';
import { openLedger, prepareLedger, type LedgerRowsBackend } from './open.ts';
import { prepareLedgerPlugin } from './plugin-host.ts';

export type LedgerCopyReport =
  | { status: 'none' }
  | { status: 'copied'; tasks: number }
  | { status: 'converted'; tasks: number; file: string; savedAs: string }
  | { status: 'kept'; reason: string };

function refuse(message: string): never {
  throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', message);
}

export function isEmptyLedger(doc: LedgerExport | undefined): boolean {
  if (doc === undefined) return true;
  return (
    doc.counters.task === 0 &&
    doc.counters.surprise === 0 &&
    doc.tasks.length === 0 &&
    doc.leases.length === 0 &&
    doc.leaseEvents.length === 0 &&
    doc.checkpoints.length === 0 &&
    doc.surprises.length === 0
  );
}

function readLedgerDoc(personaDir: string, personaId: string): LedgerExport {
  const { store } = openLedger(personaDir, { personaId, readonly: true });
  try {
    return store.exportLedger();
  } finally {
    store.close();
  }
}

export const ledgerPart: BackendPart<LedgerCopyReport> = {
  name: 'ledger',
  prepare: prepareLedgerPlugin,

  occupied(to: PersonaBackend, samePersona: boolean): boolean {
    const ledger = ledgerOf(to);
    if (ledger.format === 'postgres') return !isEmptyLedger(ledger.exportDoc());
    // Within one persona the ledger file is the same one on both sides: it is converted, not occupied.
    if (samePersona) return false;
    const dbFile = ledger.file();
    const format = dbFile === undefined ? 'missing' : detectLedgerFormat(dbFile);
    return format !== 'missing' && format !== 'empty' && (format !== ledger.format || !isEmptyLedger(ledger.exportDoc()));
  },

  async exportFrom(from: PersonaBackend, to: PersonaBackend, samePersona: boolean) {
    const source = ledgerOf(from);
    const target = ledgerOf(to);
    // A ledger kept as rows (postgres) is read through its backend; one kept as a file in
    // whatever format the file is in (it may have been created with `runtimectl ledger init
    // --backend ...` independently of the persistence backend).
    const rowsLedger = source.format === 'postgres';
    const ledgerFile = rowsLedger ? undefined : source.file();
    const ledgerFormat = rowsLedger ? 'postgres' : ledgerFile === undefined ? 'missing' : detectLedgerFormat(ledgerFile);
    if (ledgerFile !== undefined && ledgerFormat === 'unknown') refuse(`${path.relative(from.personaDir, ledgerFile)} is not a runtimectl ledger; nothing was exported`);
    let ledgerDoc: LedgerExport | undefined;
    if (rowsLedger) ledgerDoc = source.exportDoc();
    else if (ledgerFormat === 'jsonl-fs' || ledgerFormat === 'sqlite') {
      // The file's own format may be neither backend's: its backend is built to read it.
      await prepareLedger();
      ledgerDoc = readLedgerDoc(from.personaDir, from.personaId);
    }
    return (): LedgerCopyReport => {
      if (ledgerDoc === undefined || (ledgerFormat !== 'jsonl-fs' && ledgerFormat !== 'sqlite' && ledgerFormat !== 'postgres')) return { status: 'none' };
      const copy = (doc: LedgerExport): LedgerCopyReport => {
        target.importDoc(doc);
        if (!isDeepStrictEqual(target.exportDoc(), doc)) refuse(`the ledger reads back differently from ${to.name}`);
        return { status: 'copied', tasks: doc.tasks.length };
      };
      // Rows on one side: the ledger is copied through its export and read back.
      if (ledgerFile === undefined || target.format === 'postgres') return copy(ledgerDoc);
      if (samePersona && ledgerFormat === target.format) return { status: 'kept', reason: `the ledger is already in the ${ledgerFormat} format, where it stays` };
      if (samePersona) {
        const conversion = convertLedgerInPlace(ledgerFile, path.relative(from.personaDir, ledgerFile), ledgerDoc, ledgerFormat as 'jsonl-fs' | 'sqlite', target.format, {
          backend: to as LedgerRowsBackend,
          personaDir: to.personaDir,
          personaId: to.personaId,
        });
        return { status: 'converted', tasks: ledgerDoc.tasks.length, file: path.relative(from.personaDir, conversion.file), savedAs: conversion.savedAs };
      }
      return copy(ledgerDoc);
    };
  },

  describe(l: LedgerCopyReport): string {
    if (l.status === 'none') return 'no ledger';
    if (l.status === 'kept') return `ledger kept (${l.reason})`;
    if (l.status === 'copied') return `ledger copied (${l.tasks} task(s))`;
    return `ledger converted in place (${l.tasks} task(s); old file kept as ${l.savedAs})`;
  },
};
