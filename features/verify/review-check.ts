/**
 * The review queue's part of `runtimectl verify` and of start-up checks: the proposal log's
 * chain and records, the stored blobs, and long-term.md against the last promotion applied.
 * Read-only. `proposalsVerifyCheck` is in VERIFY_CHECKS (cli.ts). It lives in verify (which
 * reads the review queue) rather than in features/review, so the review feature never imports verify.
 */
import { persistenceProvider } from '../persistence/provider.ts';
import path from 'node:path';
import type { VerifyCheck, VerifyCheckResult, VerifyFinding } from './cli.ts';
import { isKernelError } from '../../kernel/errors.ts';
import { scanEventLog } from '../../kernel/events/scan.ts';
import { reviewHistory } from '../review-queue/log-history.ts';
import { verifyHistory } from '../history-segments/verify.ts';
import { checkOpenFile } from '../history-segments/open-file-check.ts';
import { readBlob } from '../review-queue/blobs.ts';
import { readProposalLog } from '../review-queue/log-file.ts';
import { ReviewQueue } from '../review-queue/queue.ts';
import { LONG_TERM_MEMORY_RELATIVE, reviewPaths } from '../review-queue/paths.ts';
import type { FileChangeContent } from '../review-queue/records.ts';
import { sha256Digest } from '../review-queue/session.ts';
import { fileReviewStorage, reviewStorage, type ReviewBackend } from '../review-queue/storage.ts';
import { READ_CAPS, readFileCapped } from '../../kernel/storage/safe-read.ts';

/**
 * The queue's state checked: with `backend`, the records and long-term.md it holds (sqlite's
 * persistence.db); without, the files of the jsonl-fs layout.
 */
export function checkReviewState(personaDir: string, backend?: ReviewBackend): VerifyCheckResult {
  const paths = reviewPaths(personaDir);
  const storage = backend === undefined ? fileReviewStorage(paths) : reviewStorage(paths, backend);
  if (!storage.hasRecords()) return { status: 'absent', summary: 'no proposal log', findings: [] };
  const findings: VerifyFinding[] = [];
  // Every chain problem of the file, not just the first (the replay below stops at the first);
  // a store of whole lines is checked by that replay alone.
  for (const item of storage.kind === 'file' ? scanEventLog(paths.log) : []) {
    if (item.kind === 'problem') {
      const p = item.problem;
      findings.push({ severity: 'error', file: paths.log, line: p.line, ...(p.seq === undefined ? {} : { seq: p.seq }), code: 'RTC_ERR_REVIEW_LOG_CORRUPT', what: p.what });
    } else if (item.kind === 'torn') {
      findings.push({ severity: 'warning', file: paths.log, line: item.torn.line, code: 'RTC_ERR_REVIEW_LOG_CORRUPT', what: `torn last line (${item.torn.bytes.length} bytes); the next change saves and cuts it off` });
    }
  }
  // Sealed segments of the proposal log: their digests against the headers that follow them, every record and link.
  if (storage.kind === 'file') {
    const history = reviewHistory(paths.log, paths.persona, true);
    if (history.list().segments.length > 0) {
      const report = verifyHistory({ history, location: paths.log, checkOpen: (start) => checkOpenFile(paths.log, start) }, { mode: 'full', deep: true });
      for (const p of report.problems) findings.push({ severity: p.severity, file: p.file, ...(p.line === undefined ? {} : { line: p.line }), ...(p.seq === undefined ? {} : { seq: p.seq }), code: p.code, what: p.what });
    }
  }
  if (findings.some((f) => f.severity === 'error')) return { status: 'failed', summary: 'proposal log is damaged', findings };
  let summary: string;
  try {
    const state = storage.kind === 'file' ? readProposalLog(paths.log, paths.persona, paths.log).state : storage.read();
    const proposals = [...state.proposals.values()];
    const open = proposals.filter((p) => p.state === 'pending' || p.state === 'under-review').length;
    summary = `${proposals.length} proposal(s), ${open} open, ${state.refusals.length} refused, last seq ${state.lastSeq}`;
    for (const proposal of proposals) {
      if (proposal.kind !== 'profile-change' && proposal.kind !== 'plugin-change') continue;
      try {
        readBlob(paths.personaDir, (proposal.content as FileChangeContent).content_digest);
      } catch (error) {
        findings.push({ severity: 'error', file: storage.location, seq: proposal.submitted_seq, code: 'RTC_ERR_REVIEW_BLOB', what: `${proposal.id}: ${(error as Error).message}` });
      }
    }
    // An announced block not yet recorded is finished by the next application, not an error.
    if (state.longTerm && state.applying.size === 0) {
      const bytes = storage.kind === 'file' ? (readFileCapped(paths.longTerm, { maxBytes: READ_CAPS.longTerm }) ?? Buffer.alloc(0)) : storage.readLongTerm();
      if (bytes.length !== state.longTerm.size || sha256Digest(bytes) !== state.longTerm.sha256) {
        findings.push({
          severity: 'error',
          file: storage.kind === 'file' ? path.join(paths.personaDir, LONG_TERM_MEMORY_RELATIVE) : storage.longTermLocation,
          code: 'RTC_ERR_REVIEW_MEMORY_DRIFT',
          what: `changed outside the review queue: ${bytes.length} bytes where ${state.longTerm.id} (seq ${state.longTerm.seq}) left ${state.longTerm.size}`,
        });
      }
    }
  } catch (error) {
    if (!isKernelError(error)) throw error;
    const details = error.details as { line?: number; seq?: number };
    findings.push({
      severity: 'error',
      file: storage.location,
      ...(typeof details.line === 'number' ? { line: details.line } : {}),
      ...(typeof details.seq === 'number' ? { seq: details.seq } : {}),
      code: error.code,
      what: error.message,
    });
    summary = 'proposal log records an impossible change';
  }
  return { status: findings.some((f) => f.severity === 'error') ? 'failed' : 'ok', summary, findings };
}

/** Each persona through the backend its persistence.yaml names, opened read-only (verify's own opening when it has one). */
export const proposalsVerifyCheck: VerifyCheck = {
  name: 'proposals',
  async run(target) {
    if (target.backend) {
      const backend = await target.backend();
      const result = checkReviewState(target.personaDir, backend.name === 'jsonl-fs' ? undefined : backend);
      if (!target.fleet) return result;
      // A persona read from a database alone: the blobs proposals name are files of its folder.
      const findings = result.findings.filter((f) => f.code !== 'RTC_ERR_REVIEW_BLOB');
      return { ...result, findings, status: result.status === 'failed' && findings.every((f) => f.severity !== 'error') ? 'ok' : result.status };
    }
    const queue = await ReviewQueue.open(target.personaDir, persistenceProvider, { readonly: true });
    try {
      return checkReviewState(target.personaDir, queue.backend);
    } finally {
      await queue.close();
    }
  },
};
