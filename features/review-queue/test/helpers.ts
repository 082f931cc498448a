/** Shared set-up for the review-queue tests: a persona directory, evidence, an in-process CLI. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../../cli/main.ts';
import type { CliIo } from '../../command/command.ts';
import type { EvidenceRef, ProposalInput, ReviewPolicy } from '../index.ts';
import { makeOperators } from '../../../test/support/operator.ts';

export function digestOf(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

export const EVIDENCE: EvidenceRef[] = [{ ref: 'logs/events.jsonl#12', digest: digestOf('cycle 12') }];

/** `<tmp>/state/<persona>`; the state dir is its parent. */
export function personaDir(persona = 'alpha'): string {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  return path.join(state, persona);
}

/**
 * Evidence a ratified decision accepts: a file written into the persona folder, named by its
 * path and digest (the bare queue tests use EVIDENCE, which nothing checks).
 */
export function realEvidence(dir: string, text = 'cycle 12'): EvidenceRef[] {
  fs.mkdirSync(path.join(dir, 'brain', 'artifacts'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'brain', 'artifacts', 'evidence.md'), text);
  return [{ ref: 'brain/artifacts/evidence.md', digest: digestOf(text) }];
}

export function memory(text: string, proposer = 'loop'): ProposalInput {
  return { kind: 'memory-promotion', proposer, evidence: EVIDENCE, text };
}

export const ROOMY: ReviewPolicy = { max_pending: 100, rate_limit: { count: 100, per_seconds: 60 }, expire_after_seconds: 3600 };

export function logFile(dir: string): string {
  return path.join(dir, 'review', 'proposals.jsonl');
}

export function longTermFile(dir: string): string {
  return path.join(dir, 'brain', 'memory', 'long-term.md');
}

export function readOrEmpty(file: string): Buffer {
  return fs.existsSync(file) ? fs.readFileSync(file) : Buffer.alloc(0);
}

export function recordTypes(dir: string): string[] {
  return fs
    .readFileSync(logFile(dir), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (JSON.parse(l) as { type: string }).type);
}

export interface Captured {
  status: number;
  stdout: string;
  stderr: string;
}

/** Two operators, alice and bob, each with a credential, trusting each other. */
export const OPERATORS = makeOperators(['alice', 'bob']);

/**
 * Runs `runtimectl ...` in-process with a captured io. Without `env`, the command runs with
 * the credential of the operator its `--by` names (alice when it names none).
 */
export async function cli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const by = args.includes('--by') ? args[args.indexOf('--by') + 1] : undefined;
  const env = options.env ?? (OPERATORS[by ?? 'alice'] ?? OPERATORS.alice)!.env;
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd: options.cwd ?? os.tmpdir(), env };
  const status = await main(args, io);
  return { status, stdout, stderr };
}
