/**
 * Repairing a forked event log: what two kernels writing one persona leave behind (issue 12;
 * the persona writer lock now prevents it, logs forked before it existed remain). Both
 * appended "the next" event from the same tip, so after a sound prefix the file interleaves
 * two (or more) chains, each sound on its own. Every later open refuses the log with
 * RTC_ERR_EVENTS_CHAIN, and the persona is stuck.
 *
 * The repair never edits the evidence. It:
 *   1. reads every line and rebuilds the chains: after the longest sound prefix, each line
 *      joins the chain whose last event it links to (seq + 1 and `prev` = that hash);
 *   2. keeps one chain as the log (the longest; ties go to the one written first; `keep`
 *      picks another), in chain order, its lines byte for byte;
 *   3. keeps the whole original file aside as a hard link `events.jsonl.forked-<seq>` (the
 *      same inode, never written again), writes the repaired log to a temp file, syncs it,
 *      and renames it over `events.jsonl`: a crash at any step leaves the original log or
 *      the repaired one, and the evidence either way;
 *   4. appends `log_repaired` (reason `forked chain`) naming the evidence file, its sha256,
 *      the fork point, the kept chain and every chain set aside with its seq range, hashes
 *      and the usage of its cycles, so budgets still count tokens spent on a set-aside chain.
 *
 * Lines that join no chain (damaged, or linked to nothing) are counted as orphans and stay in
 * the evidence only. A log whose only problem is a torn last line is left to the open's own
 * torn-tail repair. The caller holds the persona's writer lock.
 */
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { usageOfEvent, type UsageEntry } from '../history/usage.ts';
import { kernelError } from '../../kernel/errors.ts';
import { computeEventHash, EVENT_SCHEMA_VERSION, EventEnvelopeSchema, GENESIS_HASH } from '../../kernel/events/envelope.ts';
import { openEventLog } from '../../kernel/events/event-log.ts';
import { syncDirectory } from '../../kernel/storage/durable-files.ts';
import { readLines } from '../../kernel/events/scan.ts';
import { headerProblem, SEGMENT_EVENT } from '../../kernel/events/segment-header.ts';

/** One sound event line of the file: where it is and how it links. */
interface Node {
  line: number;
  offset: number;
  length: number;
  seq: number;
  prev: string;
  hash: string;
  type: string;
  usage: UsageEntry | undefined;
  children: Node[];
}

export interface ChainSummary {
  first_seq: number;
  last_seq: number;
  events: number;
  first_hash: string;
  last_hash: string;
  /** file line of the chain's first event */
  first_line: number;
  cycles: number;
  /** usage of the chain's cycle events ({at, tokens, session}), for budgets */
  usage: { at: string; tokens: number; session: boolean }[];
}

export interface ForkAnalysis {
  file: string;
  /** false: the chain is sound (or only its last line is torn): nothing to repair */
  forked: boolean;
  /** the sound prefix: events and the tip the chains grow from */
  prefix: { events: number; last_seq: number; last_hash: string };
  /** every chain after the prefix, longest first (the order `keep` counts in, from 1) */
  chains: ChainSummary[];
  /** lines that join no chain (damaged, edited, or linked to nothing) */
  orphans: number;
  /** the first such line, when there is one */
  first_orphan_line: number | null;
  /**
   * lines whose event is already on a chain (the same hash): two writers that opened at the
   * same tip write the same `reboot` (its time is outside the hash), each on its own line
   */
  duplicates: number;
  torn: boolean;
}

export interface ForkRepair extends ForkAnalysis {
  kept: ChainSummary;
  set_aside: ChainSummary[];
  saved_as: string;
  saved_sha256: string;
  saved_bytes: number;
  /** seq of the `log_repaired` event */
  repair_seq: number;
}

interface Parsed {
  analysis: ForkAnalysis;
  /** the prefix's lines and each chain's lines in chain order, same order as analysis.chains */
  prefixNodes: Node[];
  chainNodes: Node[][];
}

function parseNode(bytes: Buffer, line: number, offset: number): Node | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  const claimed = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  if (typeof claimed.v === 'number' && claimed.v > EVENT_SCHEMA_VERSION) {
    throw kernelError('RTC_ERR_EVENTS_VERSION', `line ${line}: written with event schema version ${claimed.v}; this kernel cannot repair a newer log (it was left as it is)`);
  }
  const parsed = EventEnvelopeSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const event = { ...parsed.data, payload: claimed.payload as Record<string, unknown> };
  if (computeEventHash(event) !== event.hash) return undefined;
  return { line, offset, length: bytes.length + 1, seq: event.seq, prev: event.prev, hash: event.hash, type: event.type, usage: usageOfEvent(event), children: [] };
}

function summarize(nodes: Node[]): ChainSummary {
  if (nodes.length === 0) return { first_seq: 0, last_seq: 0, events: 0, first_hash: '', last_hash: '', first_line: 0, cycles: 0, usage: [] };
  const first = nodes[0]!;
  const last = nodes[nodes.length - 1]!;
  const usage = nodes.filter((n) => n.usage !== undefined).map((n) => ({ at: new Date(n.usage!.atMs).toISOString(), tokens: n.usage!.tokens, session: n.usage!.session }));
  return { first_seq: first.seq, last_seq: last.seq, events: nodes.length, first_hash: first.hash, last_hash: last.hash, first_line: first.line, cycles: usage.length, usage };
}

/** Every root-to-leaf path below `root` (a node with children, or the virtual prefix tip). */
function paths(children: Node[]): Node[][] {
  const out: Node[][] = [];
  const walk = (node: Node, trail: Node[]) => {
    const here = [...trail, node];
    if (node.children.length === 0) out.push(here);
    for (const child of node.children) walk(child, here);
  };
  for (const child of children) walk(child, []);
  return out;
}

/** Where the open segment's chain starts when its first line is a sound segment header: the sealed record it links to. */
function segmentAnchor(file: string): { seq: number; hash: string } | undefined {
  for (const { line, bytes, terminated } of readLines(file)) {
    if (!terminated || line !== 1) return undefined;
    let raw: unknown;
    try {
      raw = JSON.parse(bytes.toString('utf8'));
    } catch {
      return undefined;
    }
    const parsed = EventEnvelopeSchema.safeParse(raw);
    if (!parsed.success || parsed.data.type !== SEGMENT_EVENT || parsed.data.seq < 2) return undefined;
    const payload = (raw as { payload?: unknown }).payload;
    const event = { ...parsed.data, payload: payload as Record<string, unknown> };
    if (computeEventHash(event) !== event.hash) return undefined;
    if (headerProblem(payload, event.seq, event.prev) !== undefined) return undefined;
    return { seq: event.seq - 1, hash: event.prev };
  }
  return undefined;
}

function parse(file: string): Parsed {
  // Every sound line joins the tree under the event it links to (seq + 1, prev = its hash);
  // the genesis is the root. A log written by one writer is a single path.
  // A sealed log's open segment does not start at the genesis: its first line is the
  // `log_segment` header that links to the last record of the sealed segment before it
  // (kernel/events/segment-header.ts). The root is then that record, as the header names it;
  // whether the sealed side really ends there is verify's question, not the fork's.
  const root: Node = { line: 0, offset: 0, length: 0, seq: 0, prev: '', hash: GENESIS_HASH, type: '', usage: undefined, children: [] };
  const anchor = segmentAnchor(file);
  if (anchor !== undefined) {
    root.seq = anchor.seq;
    root.hash = anchor.hash;
  }
  const byHash = new Map<string, Node>([[root.hash, root]]);
  let orphans = 0;
  let duplicates = 0;
  let firstOrphan: number | null = null;
  let torn = false;
  for (const { line, offset, bytes, terminated } of readLines(file)) {
    if (!terminated) {
      torn = true;
      break;
    }
    const node = parseNode(bytes, line, offset);
    if (node !== undefined && byHash.get(node.hash)?.seq === node.seq) {
      duplicates += 1;
      continue;
    }
    const parent = node === undefined ? undefined : byHash.get(node.prev);
    if (node === undefined || parent === undefined || parent.seq + 1 !== node.seq || byHash.has(node.hash)) {
      orphans += 1;
      firstOrphan ??= line;
      continue;
    }
    parent.children.push(node);
    byHash.set(node.hash, node);
  }
  // The trunk: from the genesis while there is exactly one way on.
  const prefixNodes: Node[] = [];
  let tip = root;
  while (tip.children.length === 1) {
    tip = tip.children[0]!;
    prefixNodes.push(tip);
  }
  // Longest first; equal lengths in the order their first line appears in the file.
  const chainNodes = paths(tip.children).sort((a, b) => b.length - a.length || a[0]!.line - b[0]!.line);
  // After the trunk, a tip is a leaf (one sound chain) or has two or more ways on (a fork);
  // an event written twice is what two writers leave too, even where their chains agree.
  const forked = chainNodes.length > 1 || duplicates > 0;
  return {
    analysis: { file, forked, prefix: { events: prefixNodes.length, last_seq: tip.seq, last_hash: tip.hash }, chains: chainNodes.map(summarize), orphans, first_orphan_line: firstOrphan, duplicates, torn },
    prefixNodes,
    chainNodes,
  };
}

/** Why a log that is not forked is not repaired: it is sound, or damaged in a way two writers do not make. */
export function notForked(analysis: ForkAnalysis) {
  if (analysis.orphans > 0) {
    return kernelError('RTC_ERR_EVENTS_CORRUPT', `${analysis.file}: not a fork: ${analysis.orphans} line(s) are damaged, edited or link to no event (the first at line ${analysis.first_orphan_line}); "runtimectl verify" names them. This repair only separates the chains two writers made, it never cuts a log short; nothing was changed`, {
      details: { file: analysis.file, line: analysis.first_orphan_line },
    });
  }
  return kernelError('RTC_ERR_EVENTS_CHAIN', `${analysis.file}: the chain is not forked (${analysis.prefix.events} event(s) in one sound chain${analysis.torn ? '; a torn last line is cut off by the next open' : ''}); nothing to repair`, {
    details: { file: analysis.file },
  });
}

/** What a repair would do, without writing anything. */
export function analyzeFork(file: string): ForkAnalysis {
  return parse(file).analysis;
}

function copyLines(fromFd: number, toFd: number, nodes: readonly Node[]): void {
  for (const node of nodes) {
    const buffer = Buffer.allocUnsafe(node.length);
    let read = 0;
    while (read < node.length) {
      const n = readSync(fromFd, buffer, read, node.length - read, node.offset + read);
      if (n === 0) throw kernelError('RTC_ERR_EVENTS_CORRUPT', `line ${node.line}: the log changed while it was being repaired`);
      read += n;
    }
    let written = 0;
    while (written < buffer.length) written += writeSync(toFd, buffer, written, buffer.length - written);
  }
}

function sha256OfFile(file: string): string {
  const hash = createHash('sha256');
  for (const { bytes, terminated } of readLines(file)) {
    hash.update(bytes);
    if (terminated) hash.update('\n');
  }
  return hash.digest('hex');
}

/** A name beside the log that does not exist yet: `events.jsonl.forked-<seq>[.<n>]`. */
function evidenceName(file: string, seq: number): string {
  const base = `${path.basename(file)}.forked-${seq}`;
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}.${n}`;
    if (statSync(path.join(path.dirname(file), name), { throwIfNoEntry: false }) === undefined) return name;
  }
}

/**
 * Repairs a forked log at `file` (see the top of this file). `keep` picks the chain to keep
 * (1-based, in analyzeFork's order; default 1, the longest). Throws when there is no fork.
 */
export async function repairForkedLog(file: string, options: { keep?: number; now?: () => Date } = {}): Promise<ForkRepair> {
  const { analysis, prefixNodes, chainNodes } = parse(file);
  const keep = options.keep ?? 1;
  if (!analysis.forked) throw notForked(analysis);
  if (!Number.isSafeInteger(keep) || keep < 1 || keep > chainNodes.length) {
    throw kernelError('RTC_ERR_CLI_USAGE', `--keep ${keep}: there are ${chainNodes.length} chain(s) after seq ${analysis.prefix.last_seq}; pick 1 to ${chainNodes.length}`);
  }
  // Only repeated lines and no branch: the trunk alone is the log.
  const kept = chainNodes[keep - 1] ?? [];
  const dir = path.dirname(file);
  const savedSha = sha256OfFile(file);
  const savedBytes = statSync(file).size;
  const savedAs = evidenceName(file, analysis.prefix.last_seq + 1);
  // The evidence: the original inode under a second name. The repaired log is a new file.
  linkSync(file, path.join(dir, savedAs));
  syncDirectory(dir);
  const tmp = path.join(dir, `.${path.basename(file)}.repair-${process.pid}`);
  const fromFd = openSync(file, 'r');
  try {
    const toFd = openSync(tmp, 'wx', 0o644);
    try {
      copyLines(fromFd, toFd, [...prefixNodes, ...kept]);
      fsyncSync(toFd);
    } finally {
      closeSync(toFd);
    }
  } catch (error) {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw error;
  } finally {
    closeSync(fromFd);
  }
  renameSync(tmp, file);
  syncDirectory(dir);

  const setAside = chainNodes.filter((_, i) => i !== keep - 1).map(summarize);
  const keptSummary = summarize(kept);
  // Only the open segment is mended here; a sealed side before it is verify's to check.
  const log = await openEventLog(file, { sealedUnchecked: true, ...(options.now ? { now: options.now } : {}) });
  let repairSeq: number;
  try {
    const result = await log.append('log_repaired', {
      reason: 'forked chain',
      cause: 'two writers appended to this log from one point (its chains are kept whole: one here, the others in the saved file)',
      saved_as: savedAs,
      saved_sha256: savedSha,
      saved_bytes: savedBytes,
      fork_after: { seq: analysis.prefix.last_seq, hash: analysis.prefix.last_hash },
      kept: { index: keep, first_seq: keptSummary.first_seq, last_seq: keptSummary.last_seq, events: keptSummary.events, first_hash: keptSummary.first_hash, last_hash: keptSummary.last_hash, cycles: keptSummary.cycles },
      set_aside: setAside,
      orphan_lines: analysis.orphans,
      duplicate_lines: analysis.duplicates,
    });
    repairSeq = result.seq;
  } finally {
    await log.close();
  }
  return { ...analysis, kept: keptSummary, set_aside: setAside, saved_as: savedAs, saved_sha256: savedSha, saved_bytes: savedBytes, repair_seq: repairSeq };
}
