/** The durable, hash-chained, per-persona event log. */
export { openEventLog, EventLog, type AppendResult, type EventLogStartup, type EventLogStats, type OpenEventLogOptions } from './event-log.ts';
export type { Repair } from './repair.ts';
export { verifyEventLog, readEvents, type EventLogReport } from './verify.ts';
export { describeProblem, type EventLogProblem } from './scan.ts';
export {
  EventEnvelopeSchema,
  EVENT_SCHEMA_VERSION,
  GENESIS_HASH,
  computeEventHash,
  type EventEnvelope,
} from './envelope.ts';
export { canonicalJson } from './canonical.ts';
export { eventLogPath, EVENT_LOG_RELATIVE } from './paths.ts';
