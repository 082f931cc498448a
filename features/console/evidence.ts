/**
 * The gate evidence browser's data: a proposal's evidence, resolved the way the ratification
 * check resolves it (a path absolute or relative to the persona folder; a gate package named
 * by its manifest.json or its folder), and for a gate package what `evidence verify` says now
 * (features/gate/evidence/verify.ts) with each check's raw output. Only refs a proposal names
 * are opened: the console never reads a path a request makes up.
 */
import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import type { Proposal } from '../review-queue/index.ts';
import { verifyPackage, type PackageVerification } from '../gate/evidence/verify.ts';
import { MANIFEST_FILE } from '../gate/evidence/manifest-schema.ts';
import { SHOW_BYTES } from './persona.ts';

export interface EvidenceView {
  ref: string;
  digest: string;
  kind: 'gate-package' | 'event' | 'file' | 'missing';
  verification?: PackageVerification;
  outputs?: { check: string; path: string; sha256: string; text?: string; truncated?: number; missing?: boolean }[];
}

/** Every piece of evidence a proposal names, in order (a skill draft's package last). */
export function evidenceRefs(proposal: Proposal): { ref: string; digest: string }[] {
  const refs = [...proposal.evidence];
  if (proposal.kind === 'skill-draft') refs.push((proposal.content as { package: { ref: string; digest: string } }).package);
  return refs;
}

const EVENT_REF = /^(?:events|logs\/events\.jsonl|persistence\.db#events)[#/]([1-9]\d*)$/;

function isPackage(file: string): boolean {
  return (existsSync(file) && statSync(file).isDirectory() && existsSync(path.join(file, MANIFEST_FILE))) || (path.basename(file) === MANIFEST_FILE && existsSync(file));
}

/** Reads a file inside `root` only (a link or `..` out of it reads as missing). */
function readInside(root: string, rel: string): { text?: string; truncated?: number; missing?: boolean } {
  const file = path.join(root, rel);
  if (!existsSync(file) || !lstatSync(file).isFile()) return { missing: true };
  const realRoot = realpathSync(root);
  if (!realpathSync(file).startsWith(`${realRoot}${path.sep}`)) return { missing: true };
  const bytes = readFileSync(file);
  return bytes.length > SHOW_BYTES ? { text: bytes.subarray(0, SHOW_BYTES).toString('utf8'), truncated: bytes.length } : { text: bytes.toString('utf8') };
}

export function evidenceView(personaDir: string, proposal: Proposal, index: number): EvidenceView {
  const refs = evidenceRefs(proposal);
  const entry = refs[index];
  if (!entry) throw kernelError('RTC_ERR_CONSOLE_NOT_FOUND', `proposal ${proposal.id} has no evidence #${index} (it has ${refs.length})`);
  const { ref, digest } = entry;
  if (EVENT_REF.test(ref)) return { ref, digest, kind: 'event' };
  if (ref.includes('\0')) return { ref, digest, kind: 'missing' };
  const file = path.isAbsolute(ref) ? ref : path.join(personaDir, ref);
  if (!isPackage(file)) return { ref, digest, kind: existsSync(file) ? 'file' : 'missing' };
  const verification = verifyPackage(file, path.basename(file) === MANIFEST_FILE ? digest : undefined);
  let outputs: EvidenceView['outputs'];
  try {
    const manifest = JSON.parse(readFileSync(verification.manifest, 'utf8')) as { checks?: { name: string; output: string; sha256: string }[] };
    outputs = (manifest.checks ?? []).map((c) => ({ check: String(c.name), path: String(c.output), sha256: String(c.sha256), ...readInside(verification.dir, String(c.output)) }));
  } catch {
    outputs = [];
  }
  return { ref, digest, kind: 'gate-package', verification, outputs };
}
