/**
 * Giving a persona work from outside: a work packet into `<state>/<persona>/inbox/`, a direct
 * message onto `<state>/<persona>/dm/queue.jsonl` (the two places the science loop's probes
 * read, features/science-loop/probes.ts), written so a running persona never sees half of one:
 *
 *  - a packet is written under a hidden name (the probe skips names that start with "."),
 *    synced, then linked to its name (link(2) never replaces a file, so a packet already
 *    there is never overwritten) and the folder synced;
 *  - a message is one line appended in one write with O_APPEND and synced (the probe loads
 *    complete lines only; a last line without its newline waits for the next cycle).
 *
 * What the persona could not use is refused here, with why, instead of being skipped later
 * in a cycle's probe record: a packet over the probe's size cap, a name that is hidden or not
 * one plain file name, a packet whose exact bytes the persona has already loaded (the probe
 * would skip it as "digest already recorded"), a message that would take the queue past the
 * cap the probe reads.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants, linkSync, lstatSync, mkdirSync, openSync, readdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { syncDirectory, writeAllSyncClose } from '../../kernel/storage/durable-files.ts';
import { appendFileDurably } from '../persistence/state/persona-storage.ts';
import { READ_CAPS, readFileCapped } from '../../kernel/storage/safe-read.ts';
import { describePacket, MAX_PACKET_BYTES } from '../science-loop/probes.ts';

export const INBOX_FOLDER = 'inbox';
export const DM_QUEUE = path.join('dm', 'queue.jsonl');

/** What the persona has done with the work it was given, from its brain.json (undefined: it never ran). */
export interface WorkState {
  /** `packet:<sha256>` and `message:<...>` keys the probes have loaded */
  seen: ReadonlySet<string>;
  /** keys loaded and still waiting for an executor */
  pending: ReadonlySet<string>;
  /** message lines of dm/queue.jsonl loaded so far */
  dmLoadedLines: number;
}

function refuse(message: string, details: Record<string, unknown> = {}): never {
  throw kernelError('RTC_ERR_WORK_REFUSED', message, { details });
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A packet's file name: one plain, visible name (the probe skips hidden ones, and a slash would leave the inbox). */
export function checkPacketName(name: string): void {
  if (name === '' || name === '.' || name === '..') refuse(`packet name "${name}" is empty or a folder name`);
  if (name.startsWith('.')) refuse(`packet name "${name}" starts with ".": the persona skips hidden files`);
  if (name.includes('/') || name.includes('\\')) refuse(`packet name "${name}" holds a slash: it is one file name in the inbox`);
  if (/[\u0000-\u001f\u007f]/.test(name)) refuse(`packet name ${JSON.stringify(name)} holds a control character`);
  if (Buffer.byteLength(name) > 200) refuse(`packet name is ${Buffer.byteLength(name)} bytes long; at most 200`);
}

/** `<persona>/<sub>` as a real folder of the persona (created when missing); a link or a file there is refused. */
function personaFolder(personaDir: string, sub: string): string {
  const dir = path.join(personaDir, sub);
  let stat;
  try {
    stat = lstatSync(dir);
  } catch {
    mkdirSync(dir);
    syncDirectory(personaDir);
    return dir;
  }
  if (stat.isSymbolicLink()) refuse(`${dir}: is a symbolic link; the persona reads only its own folder (move the link aside)`);
  if (!stat.isDirectory()) refuse(`${dir}: is a file where the folder belongs; move it aside`);
  return dir;
}

export interface AddedPacket {
  name: string;
  file: string;
  bytes: number;
  sha256: string;
  title: string;
  /** the same bytes were already in the inbox under that name: nothing was written */
  alreadyThere: boolean;
}

/** Puts one packet into the persona's inbox, atomically, never over another file. */
export function addPacket(personaDir: string, name: string, bytes: Buffer, state?: WorkState): AddedPacket {
  checkPacketName(name);
  if (bytes.length === 0) refuse(`packet ${name} is empty: a packet is a request in words`);
  if (bytes.length > MAX_PACKET_BYTES) refuse(`packet ${name} is ${bytes.length} bytes, over the ${MAX_PACKET_BYTES}-byte cap a persona loads (a packet is a request, not a data set: put the data in its workspace and name it in the packet)`, { bytes: bytes.length });
  const digest = sha256(bytes);
  if (state?.seen.has(`packet:${digest}`)) refuse(`packet ${name}: the persona has already loaded these exact bytes (sha256 ${digest.slice(0, 12)}…), so it would skip them; change the text to give it again`);
  const inbox = personaFolder(personaDir, INBOX_FOLDER);
  const file = path.join(inbox, name);
  const title = describePacket(name, bytes.toString('utf8')).title;
  const existing = existingBytes(file);
  if (existing !== undefined) {
    if (existing.equals(bytes)) return { name, file, bytes: bytes.length, sha256: digest, title, alreadyThere: true };
    refuse(`${file}: a different packet is already there under that name; pick another --name (a packet is never overwritten: the persona may be reading it)`);
  }
  const temp = path.join(inbox, `.${name.slice(0, 100)}.${process.pid}.${randomBytes(4).toString('hex')}.incoming`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  writeAllSyncClose(fd, bytes);
  try {
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') refuse(`${file}: another packet was put there just now under that name; pick another --name`);
    throw error;
  } finally {
    unlinkSync(temp);
  }
  syncDirectory(inbox);
  return { name, file, bytes: bytes.length, sha256: digest, title, alreadyThere: false };
}

function existingBytes(file: string): Buffer | undefined {
  let stat;
  try {
    stat = lstatSync(file);
  } catch {
    return undefined;
  }
  if (!stat.isFile()) refuse(`${file}: something other than a file is there under that name; pick another --name`);
  return readFileCapped(file, { maxBytes: MAX_PACKET_BYTES + 1, shown: file }) ?? undefined;
}

export interface DirectMessage {
  from: string;
  subject?: string;
  text: string;
}

/** Appends one message to the persona's queue as one durable line; returns its line number. */
export function sendMessage(personaDir: string, message: DirectMessage, now = new Date()): { line: number; bytes: number; file: string } {
  if (message.text.trim() === '') refuse('the message is empty');
  if (message.from.trim() === '' || /[\u0000-\u001f]/.test(message.from)) refuse(`sender ${JSON.stringify(message.from)}: a name on one line`);
  const textBytes = Buffer.byteLength(message.text);
  if (textBytes > MAX_PACKET_BYTES) refuse(`the message is ${textBytes} bytes, over the ${MAX_PACKET_BYTES}-byte cap; put a large request in a work packet (inbox add) and the data in the persona's workspace`);
  personaFolder(personaDir, 'dm');
  const file = path.join(personaDir, DM_QUEUE);
  const current = readFileCapped(file, { maxBytes: READ_CAPS.dmQueue, within: personaDir, shown: DM_QUEUE });
  const line = JSON.stringify({ from: message.from, ...(message.subject ? { subject: message.subject } : {}), text: message.text, sent_at: now.toISOString() });
  // A hand-written last line without its newline is ended first, so this message is a line of its own.
  const lead = current !== undefined && current.length > 0 && current[current.length - 1] !== 0x0a ? '\n' : '';
  const data = Buffer.from(`${lead}${line}\n`, 'utf8');
  const size = current?.length ?? 0;
  if (size + data.length > READ_CAPS.dmQueue) refuse(`${file}: the queue would pass the ${READ_CAPS.dmQueue}-byte cap a persona reads; archive the loaded lines first`);
  appendFileDurably(file, data);
  const lines = (current?.toString('utf8') ?? '').split('\n').length - 1 + (lead ? 1 : 0) + 1;
  return { line: lines, bytes: data.length, file };
}

export interface InboxEntry {
  name: string;
  bytes: number | null;
  title: string | null;
  /** waiting: not loaded yet; pending: loaded, waiting for an executor; done: loaded and handled; skipped: the persona cannot load it */
  status: 'waiting' | 'pending' | 'done' | 'skipped' | 'unknown';
  reason?: string;
}

/** The inbox's packets and what the persona did with each (unknown when its brain could not be read). */
export function listInbox(personaDir: string, state: WorkState | undefined | null): InboxEntry[] {
  let names: import('node:fs').Dirent[];
  try {
    names = readdirSync(path.join(personaDir, INBOX_FOLDER), { withFileTypes: true });
  } catch {
    return [];
  }
  const out: InboxEntry[] = [];
  for (const entry of names.filter((d) => !d.name.startsWith('.')).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!entry.isFile()) {
      out.push({ name: entry.name, bytes: null, title: null, status: 'skipped', reason: 'not a regular file' });
      continue;
    }
    let bytes: Buffer | undefined;
    try {
      bytes = readFileCapped(path.join(personaDir, INBOX_FOLDER, entry.name), { maxBytes: MAX_PACKET_BYTES, within: personaDir, shown: entry.name });
    } catch (error) {
      out.push({ name: entry.name, bytes: null, title: null, status: 'skipped', reason: (error as Error).message });
      continue;
    }
    if (bytes === undefined) continue;
    const key = `packet:${sha256(bytes)}`;
    const status = state === null || state === undefined ? (state === null ? 'unknown' : 'waiting') : state.pending.has(key) ? 'pending' : state.seen.has(key) ? 'done' : 'waiting';
    out.push({ name: entry.name, bytes: bytes.length, title: describePacket(entry.name, bytes.toString('utf8')).title, status });
  }
  return out;
}

/** Lines of the persona's message queue (complete ones). */
export function queuedMessages(personaDir: string): number {
  const bytes = readFileCapped(path.join(personaDir, DM_QUEUE), { maxBytes: READ_CAPS.dmQueue, within: personaDir, shown: DM_QUEUE });
  if (bytes === undefined) return 0;
  return bytes.toString('utf8').split('\n').slice(0, -1).filter((l) => l.trim() !== '').length;
}
