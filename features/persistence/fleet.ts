/**
 * The fleet in a shared Postgres database, for `status --dsn` and `activity --dsn`: every
 * persona that ever wrote there (the kernel's `runtimectl_kernel.personas`), each read through the
 * postgres backend, read-only, without a state directory. An operator sees every kernel's
 * personas from one place.
 */
import os from 'node:os';
import path from 'node:path';
import { bridgeFor } from './storage/postgres/pg-bridge.ts';
import { prepareKernelSchema } from './storage/postgres/pg-schema.ts';
import { kernelError } from '../../kernel/errors.ts';
import { openBackend } from './open.ts';
import type { PersonaBackend } from './backend.ts';
import { PERSONA_ID_PATTERN } from '../../kernel/ids.ts';

/** The persona ids kept in the database, sorted (none when runtimectl never wrote there). */
export async function sharedPersonas(dsn: string): Promise<string[]> {
  const bridge = bridgeFor(dsn);
  await bridge.ready();
  // The kernel's schema checked read-only first: a database migrated by a newer kernel, or not yet to this one's layout, is refused in one line.
  const present = bridge.querySync("SELECT to_regclass('runtimectl_kernel.personas') IS NOT NULL AS now, to_regclass('runtimectl.personas') IS NOT NULL AS before").rows[0];
  if (present?.now !== true && present?.before !== true) return [];
  prepareKernelSchema(bridge, true);
  return bridge.querySync('SELECT persona FROM runtimectl_kernel.personas ORDER BY persona').rows.map((r) => String(r.persona));
}

/** A persona folder that is never created: a shared store needs none to be read. */
export function viewFolder(persona: string): string {
  return path.join(os.tmpdir(), 'runtimectl-fleet-view', persona);
}

/** Persona `persona`'s state in the database, read-only. */
export function openShared(dsn: string, persona: string): Promise<PersonaBackend> {
  if (!PERSONA_ID_PATTERN.test(persona)) throw kernelError('RTC_ERR_CLI_USAGE', `persona "${persona}": lowercase letters, digits, "-" and "_"`);
  return openBackend(viewFolder(persona), 'postgres', { readonly: true, dsn, personaId: persona });
}
