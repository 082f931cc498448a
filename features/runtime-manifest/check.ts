/** Reads and validates one `scidex-runtime.yaml`, and summarizes it in one line. */
import { readManifestFile } from '../../kernel/manifest/load.ts';
import { ScidexRuntimeManifestSchema, type ScidexRuntimeManifest } from './schema.ts';

export function readRuntimeManifest(file: string, displayRoot?: string): ScidexRuntimeManifest {
  return readManifestFile(ScidexRuntimeManifestSchema, file, displayRoot);
}

export function summarizeRuntimeManifest(m: ScidexRuntimeManifest): string {
  const parts = [`${m.artifact_ref}: ${m.runtime_kind}`];
  if (m.entrypoint !== undefined) parts.push(`entrypoint ${m.entrypoint}`);
  if (m.image !== undefined) parts.push(`image ${m.image}`);
  if (m.ports?.length) parts.push(`ports ${m.ports.join(',')}`);
  const r = m.resources;
  if (r) {
    const res = [
      r.cpu === undefined ? undefined : `cpu ${r.cpu}`,
      r.memory_gb === undefined ? undefined : `memory ${r.memory_gb} GB`,
      r.gpu === undefined ? undefined : `gpu ${String(r.gpu)}`,
    ].filter((x) => x !== undefined);
    if (res.length) parts.push(res.join(', '));
  }
  if (m.substrate) parts.push(`registers as ${m.substrate.registers_as}`);
  if (m.maintainers?.length) parts.push(`${m.maintainers.length} maintainer(s)`);
  return parts.join('; ');
}
