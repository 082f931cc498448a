/**
 * The ledger's records as zod schemas, and the types derived from them. The same schemas
 * validate caller input, each replayed JSONL record, and an export being imported, so a
 * value is held to one set of bounds however it arrives.
 *
 * Every time in a record is a caller-supplied `now` in milliseconds: the ledger never reads
 * the clock itself, so replaying the same calls gives the same ledger.
 */
import { z } from 'zod';
import { TASK_STATES } from './lifecycle.ts';

/** The ledger schema this code writes; a ledger stamped with a higher one is refused. */
export const LEDGER_SCHEMA_VERSION = 1;

export const MAX_TEXT = 2_000;
export const MAX_NAME = 200;
export const MAX_CHECKPOINT_PATHS = 200;
export const MAX_CHECKPOINT_COMMANDS = 100;
export const MAX_CHECKPOINT_LIST = 100;
/** A checkpoint is a resumption record, not a log: its JSON form stays under this size. */
export const MAX_CHECKPOINT_BYTES = 64 * 1024;
export const MAX_EVIDENCE = 50;
export const MAX_AFFECTS = 200;
/** Thirty days: a lease longer than this is a misconfiguration, not a lease. */
export const MAX_LEASE_TTL_MS = 30 * 24 * 3600 * 1000;

export const TASK_ID = /^T-\d{4,}$/;
export const SURPRISE_ID = /^S-\d{4,}$/;

export const taskStateSchema = z.enum(TASK_STATES);
export const timeSchema = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
export const nameSchema = z.string().trim().min(1).max(MAX_NAME);
export const textSchema = z.string().max(MAX_TEXT);
const requiredText = z.string().trim().min(1).max(MAX_TEXT);
export const taskIdSchema = z.string().regex(TASK_ID, 'must look like T-0001');
export const surpriseIdSchema = z.string().regex(SURPRISE_ID, 'must look like S-0001');
export const resourceSchema = z.string().trim().min(1).max(500);

export const historyEntrySchema = z.strictObject({
  at: timeSchema,
  by: nameSchema,
  from: taskStateSchema.nullable(),
  to: taskStateSchema,
  reason: textSchema,
});
export type HistoryEntry = z.output<typeof historyEntrySchema>;

export const taskRowSchema = z.strictObject({
  id: taskIdSchema,
  title: requiredText,
  description: textSchema,
  state: taskStateSchema,
  /** Where a blocked task returns to; null unless the task is blocked. */
  blockedFrom: taskStateSchema.nullable(),
  /** True when the block came from a surprise (and lifts when its surprises are resolved). */
  blockedBySurprise: z.boolean(),
  createdAt: timeSchema,
  updatedAt: timeSchema,
});
export type TaskRow = z.output<typeof taskRowSchema>;
export type Task = TaskRow & { history: HistoryEntry[] };

export const leaseSchema = z.strictObject({
  resource: resourceSchema,
  owner: nameSchema,
  acquiredAt: timeSchema,
  renewedAt: timeSchema,
  ttlMs: z.number().int().min(1).max(MAX_LEASE_TTL_MS),
  expiresAt: timeSchema,
});
export type Lease = z.output<typeof leaseSchema>;

export const LEASE_EVENTS = ['acquired', 'renewed', 'released', 'reconciled-gone', 'reconciled-alive'] as const;
export const leaseEventSchema = z.strictObject({
  resource: resourceSchema,
  owner: nameSchema,
  event: z.enum(LEASE_EVENTS),
  at: timeSchema,
  by: nameSchema,
  reason: textSchema,
});
export type LeaseEvent = z.output<typeof leaseEventSchema>;

/** What a caller writes into a checkpoint: a bounded record to resume the task from. */
export const checkpointBodySchema = z
  .strictObject({
    changedPaths: z.array(z.string().min(1).max(MAX_TEXT)).max(MAX_CHECKPOINT_PATHS).default([]),
    commands: z
      .array(
        z.strictObject({
          command: z.string().min(1).max(MAX_TEXT),
          result: textSchema,
          exitCode: z.number().int().nullable().optional(),
        }),
      )
      .max(MAX_CHECKPOINT_COMMANDS)
      .default([]),
    artifacts: z
      .array(z.strictObject({ path: z.string().min(1).max(MAX_TEXT), sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be a hex SHA-256') }))
      .max(MAX_CHECKPOINT_PATHS)
      .default([]),
    openSurprises: z.array(surpriseIdSchema).max(MAX_CHECKPOINT_LIST).default([]),
    heldLeases: z.array(resourceSchema).max(MAX_CHECKPOINT_LIST).default([]),
    sessionId: z.string().min(1).max(MAX_NAME).optional(),
    model: z.strictObject({ requested: z.string().max(MAX_NAME).optional(), observed: z.string().max(MAX_NAME).optional() }).optional(),
    nextAction: requiredText,
  })
  .refine((body) => new TextEncoder().encode(JSON.stringify(body)).length <= MAX_CHECKPOINT_BYTES, {
    message: `a checkpoint must stay under ${MAX_CHECKPOINT_BYTES} bytes of JSON; raw logs belong in evidence`,
  });
export type CheckpointInput = z.input<typeof checkpointBodySchema>;
export type CheckpointBody = z.output<typeof checkpointBodySchema>;

export const checkpointSchema = z.strictObject({
  taskId: taskIdSchema,
  /** 1, 2, 3 ... per task; every checkpoint is kept. */
  seq: z.number().int().min(1),
  at: timeSchema,
  by: nameSchema,
  body: checkpointBodySchema,
});
export type Checkpoint = z.output<typeof checkpointSchema>;

export const surpriseSchema = z.strictObject({
  id: surpriseIdSchema,
  observation: requiredText,
  evidence: z.array(z.string().min(1).max(MAX_TEXT)).max(MAX_EVIDENCE),
  affects: z.array(taskIdSchema).max(MAX_AFFECTS),
  state: z.enum(['open', 'resolved']),
  recordedAt: timeSchema,
  recordedBy: nameSchema,
  resolvedAt: timeSchema.nullable(),
  resolvedBy: nameSchema.nullable(),
  outcome: textSchema.nullable(),
});
export type Surprise = z.output<typeof surpriseSchema>;

export const COUNTERS = ['task', 'surprise'] as const;
export type CounterName = (typeof COUNTERS)[number];
export const countersSchema = z.strictObject({ task: z.number().int().min(0), surprise: z.number().int().min(0) });
export type Counters = z.output<typeof countersSchema>;

/** A whole ledger as one backend-neutral document: what export writes and import reads. */
export const ledgerExportSchema = z.strictObject({
  format: z.literal('runtimectl-ledger-export'),
  schemaVersion: z.number().int().min(1),
  counters: countersSchema,
  tasks: z.array(taskRowSchema.extend({ history: z.array(historyEntrySchema) })),
  leases: z.array(leaseSchema),
  leaseEvents: z.array(leaseEventSchema),
  checkpoints: z.array(checkpointSchema),
  surprises: z.array(surpriseSchema),
});
export type LedgerExport = z.output<typeof ledgerExportSchema>;

/** The number in an id like `T-0042`, for ordering (string order breaks past 9999). */
export function idNumber(id: string): number {
  return Number(id.slice(id.indexOf('-') + 1));
}

export function formatId(prefix: 'T' | 'S', n: number): string {
  return `${prefix}-${String(n).padStart(4, '0')}`;
}

export function byIdNumber<T extends { id: string }>(a: T, b: T): number {
  return idNumber(a.id) - idNumber(b.id);
}
