/**
 * What a starting kernel does with substrate state (plugin manifests and bundle digests):
 * the first start records it in `<state>/substrate.json`; every later start compares what is
 * installed now with the record. Nothing changed: verified. Something changed (an operator
 * upgraded a plugin): the changes are returned so each persona's start event carries them
 * into its hash-chained log, and the record is replaced by the new baseline; the log keeps
 * what it was. A record that cannot be read stops the start: it is evidence, left as it is.
 *
 * A plugin recorded from an outside folder this start does not search (another persona's run
 * passed --plugins-dir F, this one did not) was not looked at, so it is neither a change nor
 * gone: its record is kept as it is in the new baseline, and `verify` names the folder to pass.
 * A record that lacks where its outside plugins came from (written before that was recorded)
 * is rewritten with it, as nothing changed.
 */
import type { Substrate, SubstrateChange, SubstrateOptions } from './substrate.ts';
import { compareSubstrate, currentSubstrate, readSubstrate, writeSubstrate } from './substrate.ts';

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

/** The new baseline: what this start found, with the records of outside folders it did not search kept. */
function baseline(current: Substrate, recorded: Substrate, offPath: readonly SubstrateChange[]): Substrate {
  const kept = new Set(offPath.map((c) => c.file.replace(/\/plugin\.yaml$/, '')));
  const plugins = { ...current.plugins };
  for (const [folder, record] of Object.entries(recorded.plugins)) if (kept.has(folder) && plugins[folder] === undefined) plugins[folder] = record;
  return { ...current, plugins };
}

/** Where each plugin came from, as recorded: a record without it is refreshed even when nothing changed. */
function sources(substrate: Substrate): string {
  return JSON.stringify([substrate.search_path ?? [], Object.entries(substrate.plugins).map(([k, p]) => [k, p.source ?? null])]);
}

export async function checkSubstrateAtStart(stateDir: string, options: SubstrateOptions): Promise<SubstrateAtStart> {
  const recorded = readSubstrate(stateDir);
  const current = await currentSubstrate(options);
  if (recorded === undefined) {
    writeSubstrate(stateDir, current);
    return { status: 'recorded', bundles: bundlesOf(current), changes: [] };
  }
  const all = compareSubstrate(recorded, current);
  const offPath = all.filter((c) => c.kind === 'off-path');
  const changes = all.filter((c) => c.kind !== 'off-path');
  const next = baseline(current, recorded, offPath);
  if (changes.length === 0) {
    if (sources(next) !== sources(recorded)) writeSubstrate(stateDir, { ...next, recorded_at: recorded.recorded_at });
    return { status: 'verified', bundles: bundlesOf(current), changes };
  }
  writeSubstrate(stateDir, next);
  return { status: 'changed', bundles: bundlesOf(next), changes };
}
