/**
 * The line format of the `jsonl-fs` ledger. Line 1 is a header naming the format and the
 * schema version; every later line is one committed change: a sequence number, a label
 * saying what the change was (`task.move`, `lease.acquire`, ...), and the row writes it made.
 * Replaying the writes in order rebuilds the ledger; the labels are there for a human
 * reading the file.
 */
import { z } from 'zod';
import { JSONL_FORMAT } from './schema-error.ts';
import {
  checkpointSchema,
  historyEntrySchema,
  leaseEventSchema,
  leaseSchema,
  resourceSchema,
  surpriseSchema,
  taskIdSchema,
  taskRowSchema,
} from './records.ts';

export const jsonlHeaderSchema = z.object({
  format: z.literal(JSONL_FORMAT),
  schemaVersion: z.number().int().min(1),
});

export const jsonlOpSchema = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('counter'), name: z.enum(['task', 'surprise']), value: z.number().int().min(0) }),
  z.strictObject({ op: z.literal('task'), row: taskRowSchema }),
  z.strictObject({ op: z.literal('history'), taskId: taskIdSchema, entry: historyEntrySchema }),
  z.strictObject({ op: z.literal('lease'), lease: leaseSchema }),
  z.strictObject({ op: z.literal('lease-delete'), resource: resourceSchema }),
  z.strictObject({ op: z.literal('lease-event'), event: leaseEventSchema }),
  z.strictObject({ op: z.literal('checkpoint'), checkpoint: checkpointSchema }),
  z.strictObject({ op: z.literal('surprise'), surprise: surpriseSchema }),
]);
export type JsonlOp = z.output<typeof jsonlOpSchema>;

export const jsonlChangeSchema = z.strictObject({
  seq: z.number().int().min(1),
  change: z.string().min(1).max(100),
  ops: z.array(jsonlOpSchema),
  /** Set on `repair` records: what was cut and why. */
  note: z.string().max(500).optional(),
});
export type JsonlChange = z.output<typeof jsonlChangeSchema>;
