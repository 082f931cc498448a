/**
 * The `jsonl-fs` persistence backend (the embedded default): a persona's state as plain files
 * in its folder, the layout every other part of runtimectl reads.
 *
 *   logs/events.jsonl               the kernel's hash-chained log (placed here, written by the kernel)
 *   brain/memory/brain.json         rewritten whole: temp file, fsync, rename
 *   brain/memory/long-term.md       appended and fsynced
 *   review/proposals.jsonl          one JSON record a line, appended and fsynced
 *   orchestra/orchestra.db          the ledger, in the jsonl-fs ledger format
 *
 * Runs in an isolate (sandbox profile `persistence`: no Deno permission) and reaches the
 * files only through `storage.files`, scoped by the kernel to the persona's own folder.
 * Events go by reference: this module only says where they are; the kernel writes and
 * verifies them (features/persistence/storage/event-bindings.ts).
 */
import { files, type BatchRef, type Token } from '../persistence-shared/storage.ts';

const EVENTS = 'logs/events.jsonl';
const BRAIN = 'brain/memory/brain.json';
const LONG_TERM = 'brain/memory/long-term.md';
const PROPOSALS = 'review/proposals.jsonl';

export function describe(_s: Token) {
  return { name: 'jsonl-fs', events: EVENTS, proposals: PROPOSALS, ledger: 'jsonl-fs' };
}

/** Plain files need no schema check: a missing file is an empty store. */
export function open(_s: Token, _o: { persona_id: string; readonly: boolean }): void {}

export function close(_s: Token): void {}

export function openEvents(s: Token): void {
  files.events.open(s, EVENTS);
}

export async function appendEvents(s: Token, ref: BatchRef): Promise<void> {
  await files.events.append(s, EVENTS, ref.batch);
}

export function readEvents(s: Token, r: { handle: number }): void {
  files.events.read(s, EVENTS, r.handle);
}

export async function importEvents(s: Token, ref: BatchRef): Promise<void> {
  await files.events.import(s, EVENTS, ref.batch);
}

/**
 * Whole-file caps, the kernel's READ_CAPS (kernel/storage/safe-read.ts: a module this isolate
 * bundle cannot import, it reads the disk): brain.json is bounded by its own caps, long-term.md
 * grows by reviewed promotions of at most 64 KiB each.
 */
const BRAIN_CAP = 8 * 1024 * 1024;
const LONG_TERM_CAP = 64 * 1024 * 1024;

export function readBrain(s: Token): string | null {
  return files.readText(s, BRAIN, BRAIN_CAP) ?? null;
}

/**
 * brain.json is rewritten every cycle: the previous complete brain after a power loss is
 * acceptable (cycle numbers come from the event log); kill -9 always finds the new one.
 */
export function writeBrain(s: Token, text: string): void {
  files.replace(s, BRAIN, text, 'when-new');
}

/** The same replace in Node's thread pool, for the loop while other personas' cycles can use the time. */
export async function writeBrainAsync(s: Token, text: string): Promise<void> {
  await files.replaceAsync(s, BRAIN, text, 'when-new');
}

export function readLongTerm(s: Token): string {
  return files.readText(s, LONG_TERM, LONG_TERM_CAP) ?? '';
}

export function appendLongTerm(s: Token, text: string): void {
  files.append(s, LONG_TERM, text);
}

export function memoryIsEmpty(s: Token): boolean {
  return !files.stat(s, BRAIN).exists && files.stat(s, LONG_TERM).size === 0;
}

export function appendProposals(s: Token, lines: string[]): void {
  files.append(s, PROPOSALS, `${lines.join('\n')}\n`);
}

/** The stored lines; the text after the last newline is a torn write (never acknowledged), left out. */
export function proposalLines(s: Token): string[] {
  const parts = (files.readText(s, PROPOSALS) ?? '').split('\n');
  parts.pop();
  return parts;
}

export function proposalsIsEmpty(s: Token): boolean {
  return files.stat(s, PROPOSALS).size === 0;
}

export { ledgerLoad, ledgerCommit } from './ledger.ts';
