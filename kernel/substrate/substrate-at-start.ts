/**
 * What a starting kernel does with substrate state (plugin manifests and bundle digests):
 * the first start records it in `<state>/substrate.json`; every later start compares what is
 * installed now with the record. Nothing changed: verified. Something changed (an operator
 * upgraded a plugin): the changes are returned so each persona's start event carries them
 * into its hash-chained log, and the record is replaced by the new baseline; the log keeps
 * what it was. A record that cannot be read stops the start: it is evidence, left as it is.
 */
import type { Substrate, SubstrateChange, SubstrateOptions } from './substrate.ts';
import { compareSubstrate, currentSubstrate, readSubstrate, recordSubstrate } from './substrate.ts';

export interface SubstrateAtStart {
  status: 'recorded' | 'verified' | 'changed';
  /** bundle digests by plugin id, as verified or recorded at this start */
  bundles: Record<string, string>;
  changes: SubstrateChange[];
}

function bundlesOf(substrate: Substrate): Record<string, string> {
  const out: Record<string, string> = {};
  for (const record of Object.values(substrate.plugins)) out[record.id] = 'digest' in record.bundle ? record.bundle.digest : `error: ${record.bundle.error}`;
  return out;
}

export async function checkSubstrateAtStart(stateDir: string, options: SubstrateOptions = {}): Promise<SubstrateAtStart> {
  const recorded = readSubstrate(stateDir);
  if (recorded === undefined) {
    const substrate = await recordSubstrate(stateDir, options);
    return { status: 'recorded', bundles: bundlesOf(substrate), changes: [] };
  }
  const current = await currentSubstrate(options);
  const changes = compareSubstrate(recorded, current);
  if (changes.length === 0) return { status: 'verified', bundles: bundlesOf(current), changes };
  const substrate = await recordSubstrate(stateDir, options);
  return { status: 'changed', bundles: bundlesOf(substrate), changes };
}
