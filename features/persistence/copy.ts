/**
 * copyPersistence: everything one backend holds for a persona, copied into another, and
 * checked after the copy. What `runtimectl persistence export` runs; switching a persona's
 * backend is then one line of its persistence.yaml.
 *
 *   events     verbatim (same seq, prev, hash and at; nothing re-hashed or re-redacted),
 *              then the target's chain is verified and compared event by event
 *   memory     brain.json and long-term.md, byte for byte
 *   proposals  the raw lines, byte for byte
 *   parts      the state features keep in the backend (the ledger), each through its own
 *              BackendPart (parts.ts), handed in by the caller with the history's rollup
 *
 * The target must be empty: a copy never merges into or overwrites existing state. The
 * source is checked first (a damaged event chain is refused before anything is written).
 * Run it with the persona stopped: a copy of a log still being appended to is a prefix.
 */
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { EventOpenOptions } from '../../kernel/contracts/persistence.ts';
import { CheckpointMismatch, confirmCheckpoint } from '../history-segments/checkpoint.ts';
import { kernelError } from '../../kernel/errors.ts';
import type { PersonaBackend as PersistenceBackend } from './backend.ts';
import { eventLine } from './storage/rows.ts';
import { prepareParts, type BackendPart } from './parts.ts';

/** What a copy needs from the features above persistence. */
export interface CopyParts {
  /** a sealed segment's rollup (features/history/rollup.ts `rollupOf`): the copy is sealed as the source, with the same rollups */
  rollup: NonNullable<EventOpenOptions['rollup']>;
  /** the state features keep in the backend (the ledger), copied after the kernel's parts */
  parts: readonly BackendPart[];
}

export interface CopyReport {
  persona: string;
  from: string;
  to: string;
  events: { copied: number; lastSeq: number; lastHash: string };
  memory: { brain: boolean; longTermBytes: number };
  proposals: { copied: number };
  /** each part's report, under its name (`ledger`) */
  [part: string]: unknown;
}

function refuse(message: string, details: Record<string, unknown> = {}): never {
  throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', message, { details });
}

/** What the target already holds, by part; empty when the copy may go ahead. */
function occupied(to: PersistenceBackend, samePersona: boolean, featureParts: readonly BackendPart[]): string[] {
  const parts: string[] = [];
  if (!to.events.isEmpty()) parts.push(`events (${path.relative(to.personaDir, to.events.location) || to.events.location})`);
  if (!to.memory.isEmpty()) parts.push('memory');
  if (!to.proposals.isEmpty()) parts.push('proposals');
  for (const part of featureParts) if (part.occupied(to, samePersona)) parts.push(part.name);
  return parts;
}

export async function copyPersistence(from: PersistenceBackend, to: PersistenceBackend, o: CopyParts): Promise<CopyReport> {
  const samePersona = path.resolve(from.personaDir) === path.resolve(to.personaDir);
  if (samePersona && from.name === to.name) refuse(`cannot export the ${from.name} backend of persona ${from.personaId} into itself`);
  if (to.readonly) refuse('the target backend was opened read-only');
  if (from.personaId !== to.personaId) refuse(`the source is persona ${from.personaId} and the target persona ${to.personaId}; state is never copied between personas`);

  await prepareParts(o.parts);
  const taken = occupied(to, samePersona, o.parts);
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
  // Each feature's part is read and checked now, before anything is written.
  const partWriters: { part: BackendPart; write: () => unknown }[] = [];
  for (const part of o.parts) partWriters.push({ part, write: await part.exportFrom(from, to, samePersona) });

  // Events, then their check: same count, same chain, the same line for every event.
  // The copy is segmented as the source (each log_segment header seals what came before it), with the same rollups.
  const copied = await to.events.importEvents(from.events.read(), { rollup: o.rollup });
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

  const partReports: Record<string, unknown> = {};
  for (const { part, write } of partWriters) partReports[part.name] = write();

  return {
    persona: from.personaId,
    from: from.name,
    to: to.name,
    events: { copied, lastSeq: target.lastSeq, lastHash: target.lastHash },
    memory: { brain: brain !== undefined, longTermBytes: Buffer.byteLength(longTerm) },
    proposals: { copied: proposals.length },
    ...partReports,
  };
}
