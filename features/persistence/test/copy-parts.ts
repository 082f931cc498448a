/**
 * What the composition root hands `persistence export` (cli/commands.ts): the history's
 * rollups and the ledger part, so the copies these tests make are the copies users run. The
 * ledger plugin is prepared here once, as the loop's provider and `persistence export` do
 * before they reach a backend's ledger.
 */
import { rollupOf } from '../../history/rollup.ts';
import { ledgerPart } from '../../ledger/backend-part.ts';
import type { CopyParts } from '../copy.ts';

export const COPY_PARTS: CopyParts = { rollup: rollupOf, parts: [ledgerPart] };

await ledgerPart.prepare();
