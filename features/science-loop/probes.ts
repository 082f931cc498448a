/**
 * The idempotent probes that find a cycle's work. Each reports what it did, and every skip
 * comes with its reason, so a quiet persona's log reads as healthy rather than stalled:
 *
 * - work packets: each file in `inbox/` is loaded once, by the sha256 of its bytes; a
 *   digest already recorded is skipped (a changed file is a new packet);
 * - direct messages: `dm/queue.jsonl` is skipped when missing or when every line is loaded;
 *   new lines are loaded as messages;
 * - periodic patrol: offered only when its cadence slot is due.
 *
 * Loaded packets and messages wait in brain.json's pending list until an executor (or a
 * reviewer handoff) finishes them.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, type Dirent } from 'node:fs';
import path from 'node:path';
import type { WorkItem } from '../../kernel/contracts/executor.ts';
import { errorLine, isKernelError } from '../../kernel/errors.ts';
import { READ_CAPS, readFileCapped } from '../../kernel/storage/safe-read.ts';
import { addPending, rememberKeys, type Brain } from './brain.ts';
import type { PersonaPaths } from '../persona-layout/layout.ts';

export interface ProbeRecord {
  probe: string;
  action: 'ran' | 'skipped' | 'failed';
  reason: string;
  /** per-item skips (file names or line numbers), at most 20 */
  skipped?: string[];
}

/** Packets larger than this are skipped (a packet is a request, not a data set). */
export const MAX_PACKET_BYTES = 64 * 1024;
/** Text of a packet or message handed to the executor. */
const MAX_BODY = 8 * 1024;
/** Work offered to one cycle at most; the rest waits. */
export const MAX_WORK_PER_CYCLE = 5;

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A packet's title (first heading or line) and an optional `tier: N` hint (front matter or JSON). */
export function describePacket(name: string, text: string): { title: string; tier_hint?: number } {
  let tier: number | undefined;
  let title: string | undefined;
  if (name.endsWith('.json')) {
    try {
      const doc = JSON.parse(text) as Record<string, unknown>;
      if (typeof doc.title === 'string') title = doc.title;
      if (typeof doc.tier === 'number') tier = doc.tier;
    } catch {
      // not JSON after all: treat it as text
    }
  }
  const tierLine = /^tier:\s*([1-6])\s*$/m.exec(text);
  if (tier === undefined && tierLine) tier = Number(tierLine[1]);
  title ??= text
    .split('\n')
    .map((l) => l.replace(/^#+\s*/, '').trim())
    .find((l) => l !== '' && l !== '---' && !/^[a-z_]+:\s/.test(l));
  return { title: clip(title ?? name, 120), ...(tier !== undefined && tier >= 1 && tier <= 6 ? { tier_hint: tier } : {}) };
}

/**
 * The inbox's entries, or undefined when there is no inbox folder. The listing is tried first
 * (one syscall less every cycle than asking first); existsSync decides only after a failure,
 * so a listing error of an inbox that exists still throws as it always did.
 */
function listInbox(dir: string): Dirent[] | undefined {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if (!existsSync(dir)) return undefined;
    throw error;
  }
}

export function probeWorkPackets(paths: PersonaPaths, brain: Brain): { record: ProbeRecord; loaded: WorkItem[] } {
  const entries = listInbox(paths.inboxDir);
  if (entries === undefined) return { record: { probe: 'work_packets', action: 'skipped', reason: 'no inbox folder' }, loaded: [] };
  const visible = entries.filter((d) => !d.name.startsWith('.')).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const skipped: string[] = [];
  // A packet is a regular file; anything else (a folder, a FIFO, a device, a link) is named and left alone.
  for (const d of visible) if (!d.isFile()) skipped.push(`${d.name}: not a regular file`);
  const names = visible.filter((d) => d.isFile()).map((d) => d.name);
  if (names.length === 0 && skipped.length === 0) return { record: { probe: 'work_packets', action: 'skipped', reason: 'inbox is empty' }, loaded: [] };
  const seen = new Set(brain.probes.seen_keys);
  const loaded: WorkItem[] = [];
  for (const name of names) {
    let bytes: Buffer | undefined;
    try {
      // Capped, non-blocking, regular files inside the persona folder only: the entry may
      // have changed since the listing, and the kernel never reads a host file for a persona.
      bytes = readFileCapped(path.join(paths.inboxDir, name), { maxBytes: MAX_PACKET_BYTES, within: paths.dir, shown: name });
    } catch (error) {
      // the reason as the operator reads it: the message (the code is data, not stripped from a line)
      skipped.push(isKernelError(error) ? error.message : errorLine(error));
      continue;
    }
    if (bytes === undefined) {
      skipped.push(`${name}: removed before it was read`);
      continue;
    }
    const key = `packet:${sha256(bytes)}`;
    if (seen.has(key)) {
      skipped.push(`${name}: digest already recorded`);
      continue;
    }
    seen.add(key);
    const text = bytes.toString('utf8');
    loaded.push({ kind: 'packet', key, body: clip(text, MAX_BODY), ...describePacket(name, text) });
  }
  rememberKeys(brain, loaded.map((w) => w.key));
  const reason =
    loaded.length > 0
      ? `loaded ${loaded.length} new packet(s): ${loaded.map((w) => w.title).join('; ')}${skipped.length ? `; skipped ${skipped.length}` : ''}`
      : `no new packet; skipped ${skipped.join('; ')}`;
  return { record: { probe: 'work_packets', action: loaded.length > 0 ? 'ran' : 'skipped', reason: clip(reason, 500), ...(skipped.length ? { skipped: skipped.slice(0, 20) } : {}) }, loaded };
}

export function probeDirectMessages(paths: PersonaPaths, brain: Brain): { record: ProbeRecord; loaded: WorkItem[] } {
  // Capped, non-blocking, regular file inside the persona folder: a FIFO, /dev/zero or a
  // multi-GB file here is this probe's failure (thrown, recorded by findWork), never a hang.
  const bytes = readFileCapped(paths.dmQueueFile, { maxBytes: READ_CAPS.dmQueue, within: paths.dir, shown: 'dm/queue.jsonl' });
  if (bytes === undefined) return { record: { probe: 'dm_queue', action: 'skipped', reason: 'queue missing (dm/queue.jsonl)' }, loaded: [] };
  const lines = bytes.toString('utf8').split('\n');
  // A last line without its newline may still be being written: it waits for the next cycle.
  const complete = lines.slice(0, -1);
  const from = brain.probes.dm_loaded_lines;
  if (complete.length <= from) {
    return { record: { probe: 'dm_queue', action: 'skipped', reason: `already loaded (${from} message line(s))` }, loaded: [] };
  }
  const loaded: WorkItem[] = [];
  const skipped: string[] = [];
  for (let i = from; i < complete.length; i++) {
    const line = complete[i]!.trim();
    if (line === '') continue;
    let text = line;
    let title: string | undefined;
    try {
      const msg = JSON.parse(line) as Record<string, unknown>;
      text = typeof msg.text === 'string' ? msg.text : line;
      const sender = typeof msg.from === 'string' ? msg.from : 'unknown sender';
      title = `from ${sender}: ${typeof msg.subject === 'string' ? msg.subject : text.split('\n')[0]}`;
    } catch {
      skipped.push(`line ${i + 1}: not JSON`);
      continue;
    }
    loaded.push({ kind: 'message', key: `message:${sha256(`${i}:${line}`)}`, title: clip(title, 120), body: clip(text, MAX_BODY) });
  }
  brain.probes.dm_loaded_lines = complete.length;
  rememberKeys(brain, loaded.map((w) => w.key));
  return {
    record: { probe: 'dm_queue', action: 'ran', reason: `loaded ${loaded.length} new message(s)${skipped.length ? `, skipped ${skipped.length}` : ''}`, ...(skipped.length ? { skipped } : {}) },
    loaded,
  };
}

export function probePeriodic(brain: Brain, phase: string, nowMs: number, periodicSeconds: number): { record: ProbeRecord; item?: WorkItem } {
  const last = brain.probes.periodic_last_ms;
  const dueAt = last === null ? nowMs : last + periodicSeconds * 1000;
  if (nowMs < dueAt) {
    return { record: { probe: 'periodic', action: 'skipped', reason: `not due: next cadence slot in ${Math.ceil((dueAt - nowMs) / 1000)} s` } };
  }
  brain.probes.periodic_last_ms = nowMs;
  return {
    record: { probe: 'periodic', action: 'ran', reason: last === null ? 'first cadence slot' : `cadence slot due (every ${periodicSeconds} s)` },
    item: { kind: 'periodic', key: `periodic:${phase}`, title: `${phase} patrol`, body: '' },
  };
}

/** Runs the three work probes; returns the work offered this cycle (pending first, then periodic). */
/** A probe that failed on a bad file: recorded with its reason, and the cycle goes on. */
function guarded(probe: string, run: () => { record: ProbeRecord; loaded: WorkItem[] }): { record: ProbeRecord; loaded: WorkItem[] } {
  try {
    return run();
  } catch (error) {
    return { record: { probe, action: 'failed', reason: `${clip(errorLine(error), 480)} (retried next cycle)` }, loaded: [] };
  }
}

export function findWork(paths: PersonaPaths, brain: Brain, phase: string, nowMs: number, periodicSeconds: number): { work: WorkItem[]; records: ProbeRecord[] } {
  const packets = guarded('work_packets', () => probeWorkPackets(paths, brain));
  const messages = guarded('dm_queue', () => probeDirectMessages(paths, brain));
  const dropped = addPending(brain, [...packets.loaded, ...messages.loaded]);
  const periodic = probePeriodic(brain, phase, nowMs, periodicSeconds);
  const records = [packets.record, messages.record, periodic.record];
  if (dropped.length > 0) {
    records.push({ probe: 'pending', action: 'skipped', reason: `dropped ${dropped.length} oldest pending item(s): more than the pending cap`, skipped: dropped.slice(0, 20).map((w) => w.title) });
  }
  const work = brain.probes.pending.slice(0, MAX_WORK_PER_CYCLE);
  if (periodic.item) work.push(periodic.item);
  return { work, records };
}
