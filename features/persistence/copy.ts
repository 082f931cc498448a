/**
 * copyPersistence: everything one backend holds for a persona, copied into another, and
 * checked after the copy. What `runtimectl persistence export` runs; switching a persona's
 * backend is then one line of its persistence.yaml.
 *
 *   events     verbatim (same seq, prev, hash and at; nothing re-hashed or re-redacted),
 *              then the target's chain is verified and compared event by event
 *   memory     brain.json and long-term.md, byte for byte
 *   proposals  the raw lines, byte for byte
 *   ledger     through the ledger's backend-neutral export; within one persona the ledger
 *              is converted in its own place (ledger-convert.ts)
 *
 * The target must be empty: a copy never merges into or overwrites existing state. The
 * source is checked first (a damaged event chain is refused before anything is written).
 * Run it with the persona stopped: a copy of a log still being appended to is a prefix.
 */
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { rollupOf } from '../history/rollup.ts';
import { CheckpointMismatch, confirmCheckpoint } from '../../kernel/history/checkpoint.ts';
import { kernelError } from '../../kernel/errors.ts';
import { detectLedgerFormat } from '../ledger/format.ts';
import { openLedger, type LedgerRowsBackend } from '../ledger/open.ts';
import type { LedgerExport } from '../ledger/records.ts';
import type { PersonaBackend as PersistenceBackend } from './backend.ts';
import { eventLine } from '../../kernel/events/rows.ts';
import { convertLedgerInPlace } from './ledger-convert.ts';

export interface CopyReport {
  persona: string;
  from: string;
  to: string;
  events: { copied: number; lastSeq: number; lastHash: string };
  memory: { brain: boolean; longTermBytes: number };
  proposals: { copied: number };
  ledger:
    | { status: 'none' }
    | { status: 'copied'; tasks: number }
    | { status: 'converted'; tasks: number; file: string; savedAs: string }
    | { status: 'kept'; reason: string };
}

function readLedgerDoc(personaDir: string, personaId: string): LedgerExport {
  const { store } = openLedger(personaDir, { personaId, readonly: true });
  try {
    return store.exportLedger();
  } finally {
    store.close();
  }
}

function refuse(message: string, details: Record<string, unknown> = {}): never {
  throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', message, { details });
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

/** What the target already holds, by part; empty when the copy may go ahead. */
function occupied(to: PersistenceBackend, sameLedger: boolean): string[] {
  const parts: string[] = [];
  if (!to.events.isEmpty()) parts.push(`events (${path.relative(to.personaDir, to.events.location) || to.events.location})`);
  if (!to.memory.isEmpty()) parts.push('memory');
  if (!to.proposals.isEmpty()) parts.push('proposals');
  if (to.ledger.format === 'postgres') {
    if (!isEmptyLedger(to.ledger.exportDoc())) parts.push('ledger');
  } else if (!sameLedger) {
    const dbFile = to.ledger.file();
    const format = dbFile === undefined ? 'missing' : detectLedgerFormat(dbFile);
    if (format !== 'missing' && format !== 'empty' && (format !== to.ledger.format || !isEmptyLedger(to.ledger.exportDoc()))) parts.push('ledger');
  }
  return parts;
}

export async function copyPersistence(from: PersistenceBackend, to: PersistenceBackend): Promise<CopyReport> {
  const samePersona = path.resolve(from.personaDir) === path.resolve(to.personaDir);
  if (samePersona && from.name === to.name) refuse(`cannot export the ${from.name} backend of persona ${from.personaId} into itself`);
  if (to.readonly) refuse('the target backend was opened read-only');
  if (from.personaId !== to.personaId) refuse(`the source is persona ${from.personaId} and the target persona ${to.personaId}; state is never copied between personas`);

  const taken = occupied(to, samePersona);
  if (taken.length > 0) {
    refuse(`the ${to.name} backend of persona ${to.personaId} is not empty (${taken.join(', ')}); export goes only into an empty backend and nothing was written`, {
      occupied: taken,
    });
  }

  // An archived segment cannot be copied: its bytes are not in the live history.
  const archived = from.events.history.list().segments.find((s) => s.archived);
  if (archived) refuse(`${archived.name}: segment ${archived.index} of the source is archived (${archived.archived!.archive.path}); restore it with "runtimectl archive restore" before exporting; nothing was exported`, { file: archived.name });
  // Check the source before writing anything.
  const source = from.events.verify();
  const firstError = source.problems.find((p) => p.severity === 'error');
  if (firstError) {
    const where = `${firstError.file}${firstError.line === undefined ? '' : `:${firstError.line}`}${firstError.seq === undefined ? '' : ` (seq ${firstError.seq})`}`;
    refuse(`the source events are damaged at ${where}: ${firstError.what}; nothing was exported`, { file: firstError.file });
  }
  const brain = from.memory.readBrain();
  const longTerm = from.memory.readLongTerm();
  const proposals = from.proposals.lines();
  // A ledger kept as rows (postgres) is read through its backend; one kept as a file in
  // whatever format the file is in (it may have been created with `runtimectl ledger init
  // --backend ...` independently of the persistence backend).
  const rowsLedger = from.ledger.format === 'postgres';
  const ledgerFile = rowsLedger ? undefined : from.ledger.file();
  const ledgerFormat = rowsLedger ? 'postgres' : ledgerFile === undefined ? 'missing' : detectLedgerFormat(ledgerFile);
  if (ledgerFile !== undefined && ledgerFormat === 'unknown') refuse(`${path.relative(from.personaDir, ledgerFile)} is not a runtimectl ledger; nothing was exported`);
  const ledgerDoc = rowsLedger ? from.ledger.exportDoc() : ledgerFormat === 'jsonl-fs' || ledgerFormat === 'sqlite' ? readLedgerDoc(from.personaDir, from.personaId) : undefined;

  // Events, then their check: same count, same chain, the same line for every event.
  // The copy is segmented as the source (each log_segment header seals what came before it), with the same rollups.
  const copied = await to.events.importEvents(from.events.read(), { rollup: rollupOf });
  const target = to.events.verify();
  if (!target.ok || target.events !== copied || target.lastSeq !== source.lastSeq || target.lastHash !== source.lastHash) {
    refuse(`the copied events do not verify in ${to.name} (${target.events} of ${copied} events, last hash ${target.lastHash.slice(0, 12)}…); ${target.problems[0]?.what ?? ''}`.trim());
  }
  const copiedEvents = to.events.read()[Symbol.iterator]();
  for (const original of from.events.read()) {
    const next = copiedEvents.next();
    if (next.done || eventLine(next.value) !== eventLine(original)) refuse(`event seq ${original.seq} reads back differently from ${to.name}`, { seq: original.seq });
  }
  if (!copiedEvents.next().done) refuse(`the ${to.name} copy holds more events than the source`);
  // The checkpoint goes along when it holds for the copy (same chain, same sealed bytes): a
  // sealed history without one is what verify calls damage, and the first start would have to
  // read every sealed segment. One that does not hold is left behind (the start rebuilds it).
  const checkpoint = from.events.history.readDocument('checkpoint');
  if (checkpoint !== undefined) {
    try {
      confirmCheckpoint(to.events, checkpoint, to.personaId, target.lastSeq);
      to.events.history.writeDocument('checkpoint', checkpoint);
    } catch (error) {
      if (!(error instanceof CheckpointMismatch)) throw error;
    }
  }

  if (brain !== undefined) to.memory.writeBrain(brain);
  if (longTerm !== '') to.memory.appendLongTerm(longTerm);
  if (to.memory.readBrain() !== brain || to.memory.readLongTerm() !== longTerm) refuse(`memory reads back differently from ${to.name}`);

  if (proposals.length > 0) to.proposals.append(proposals);
  if (!isDeepStrictEqual(to.proposals.lines(), proposals)) refuse(`proposal records read back differently from ${to.name}`);

  let ledger: CopyReport['ledger'];
  if (ledgerDoc === undefined || (ledgerFormat !== 'jsonl-fs' && ledgerFormat !== 'sqlite' && ledgerFormat !== 'postgres')) {
    ledger = { status: 'none' };
  } else if (ledgerFile === undefined || to.ledger.format === 'postgres') {
    // Rows on one side: the ledger is copied through its export and read back.
    to.ledger.importDoc(ledgerDoc);
    if (!isDeepStrictEqual(to.ledger.exportDoc(), ledgerDoc)) refuse(`the ledger reads back differently from ${to.name}`);
    ledger = { status: 'copied', tasks: ledgerDoc.tasks.length };
  } else if (samePersona && ledgerFormat === to.ledger.format) {
    ledger = { status: 'kept', reason: `the ledger is already in the ${ledgerFormat} format, where it stays` };
  } else if (samePersona) {
    const conversion = convertLedgerInPlace(ledgerFile, path.relative(from.personaDir, ledgerFile), ledgerDoc, ledgerFormat as 'jsonl-fs' | 'sqlite', to.ledger.format, { backend: to as unknown as LedgerRowsBackend, personaDir: to.personaDir, personaId: to.personaId });
    ledger = { status: 'converted', tasks: ledgerDoc.tasks.length, file: path.relative(from.personaDir, conversion.file), savedAs: conversion.savedAs };
  } else {
    to.ledger.importDoc(ledgerDoc);
    if (!isDeepStrictEqual(to.ledger.exportDoc(), ledgerDoc)) refuse(`the ledger reads back differently from ${to.name}`);
    ledger = { status: 'copied', tasks: ledgerDoc.tasks.length };
  }

  return {
    persona: from.personaId,
    from: from.name,
    to: to.name,
    events: { copied, lastSeq: target.lastSeq, lastHash: target.lastHash },
    memory: { brain: brain !== undefined, longTermBytes: Buffer.byteLength(longTerm) },
    proposals: { copied: proposals.length },
    ledger,
  };
}
