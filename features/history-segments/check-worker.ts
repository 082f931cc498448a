/** Checks sealed segments sent by parallel-check.ts: decompress, digest, check at the depth asked. */
import { parentPort } from 'node:worker_threads';
import { gunzipSync } from 'node:zlib';
import { checkSegmentBytes } from './segment-check.ts';
import { sha256Hex } from './seal.ts';
import type { CheckJob, CheckResult } from './parallel-check.ts';

parentPort!.on('message', (job: CheckJob) => {
  const gz = Buffer.from(job.gz);
  let result: CheckResult;
  try {
    const bytes = gunzipSync(gz);
    result = { index: job.index, gz_sha256: sha256Hex(gz), gz_bytes: gz.length, bytes: bytes.length, sha256: sha256Hex(bytes), check: checkSegmentBytes(bytes, { file: job.name, depth: job.depth }) };
  } catch (error) {
    result = { index: job.index, error: `not a complete gzip segment (${(error as Error).message.split('\n')[0]}); it was truncated or replaced` };
  }
  parentPort!.postMessage(result);
});
