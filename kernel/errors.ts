/**
 * The one errors module. Every error the kernel raises on purpose has a stable code
 * `RTC_ERR_<AREA>_<WHAT>`, a one-line message that names what is wrong and where, and a
 * flag saying whether it is the user's doing (bad input: print the line, no stack) or ours.
 *
 * Codes are never reused or renamed once shipped; retire one by moving it to
 * RETIRED_ERROR_CODES below with what it meant and why it went. `test/kernel/errors.test.ts`
 * pins the list (a sorted literal copy), checks each code is raised somewhere in the sources
 * and a retired one nowhere, and that docs/errors.md is the text cli/errors-doc.ts generates
 * from this file (`npm run schemas` writes it).
 *
 * Layout, read by that generator: a `//` comment line starts an area (its heading in
 * docs/errors.md); a doc comment (`/**`) is a note on the code that follows it. Add a code
 * inside its area group.
 */

export const ERROR_CODES = {
  // start-up and environment
  RTC_ERR_NODE_FLAGS: 'the kernel was started without a required Node flag',
  RTC_ERR_ENV_INVALID: 'an environment variable has an invalid value',
  // command line
  RTC_ERR_CLI_USAGE: 'the command line is not valid',
  RTC_ERR_CLI_FILE_NOT_FOUND: 'a file named on the command line does not exist',
  RTC_ERR_FS_ACCESS: 'a file or folder a command needs is missing, of the wrong kind, or cannot be read, written or created',
  /** sandboxes/fs-safety/no-follow.ts: a planted symbolic or hard link in a folder sandboxed code can write (a session folder, a workspace) */
  RTC_ERR_FS_LINK_REFUSED: 'the kernel refused to read or write through a link in a folder that sandboxed code can write',
  // manifests and profiles
  RTC_ERR_MANIFEST_INVALID: 'a manifest does not match its schema',
  RTC_ERR_MANIFEST_YAML: 'a manifest is not valid YAML',
  RTC_ERR_MANIFEST_NOT_FOUND: 'a manifest file is missing',
  RTC_ERR_PLUGIN_UNKNOWN: 'no plugin with that id is installed',
  RTC_ERR_PLUGIN_DUPLICATE: 'two plugins share one id',
  RTC_ERR_PROFILE_UNKNOWN: 'no sandbox profile with that name exists',
  // permissions
  RTC_ERR_PERMISSION_FLAG: 'a permission flag is not valid',
  RTC_ERR_PERMISSION_CEILING: 'a plugin asks for more than its ceiling allows',
  // build
  RTC_ERR_BUILD_FAILED: 'a plugin or script could not be bundled',
  /** sandboxes/loader/import-scope.ts: a module imports a file outside its own tree (its plugin's or skill's folder) and what its grant lets it read */
  RTC_ERR_BUILD_IMPORT_SCOPE: 'a plugin or script imports a file outside its own folder and its grant',
  // modules and npm packages (sandboxes/loader)
  RTC_ERR_MODULE_UNSUPPORTED: 'a script imports a kind of module the sandbox does not load (jsr:, remote URLs)',
  RTC_ERR_MODULE_NOT_FOUND: 'a bare or npm: import names no declared dependency or is malformed',
  RTC_ERR_NPM_NOT_INSTALLED: 'an npm package a script imports is not installed at its locked version',
  RTC_ERR_NPM_LOCKFILE: 'the package-lock.json beside a script or plugin is missing an entry or its integrity hash',
  RTC_ERR_NPM_NODE_BUILTIN: 'a script or an npm package it imports needs a Node built-in the sandbox does not provide',
  RTC_ERR_NPM_NATIVE_ADDON: 'an npm package a script imports is a native addon',
  RTC_ERR_NPM_INSTALL: 'installing the npm packages of a plugin or script failed',
  /** sandboxes/loader/npm-sources.ts: git, local, URL or bundled sources need an operator's --allow-* flag */
  RTC_ERR_NPM_SOURCE_REFUSED: 'a dependency comes from git, a local path, a tarball URL or a bundle, and the operator did not allow that source',
  // the Deno-compatible surface
  RTC_ERR_UNSUPPORTED: 'a script used a Deno or web API outside the sandbox\'s supported subset',
  // sandbox
  RTC_ERR_SANDBOX_MEMORY: 'a sandboxed script exceeded its memory limit',
  RTC_ERR_SANDBOX_CPU: 'a sandboxed script exceeded its CPU time limit',
  RTC_ERR_SANDBOX_WALL: 'a sandboxed script exceeded its wall time limit',
  RTC_ERR_SANDBOX_OUTPUT: 'a sandboxed script exceeded its output size cap',
  RTC_ERR_SANDBOX_TRANSFER: 'a value crossing the sandbox boundary exceeded its size cap',
  RTC_ERR_SANDBOX_CRASHED: 'a sandbox host process died',
  RTC_ERR_SANDBOX_DISPOSED: 'the isolate was disposed',
  RTC_ERR_SANDBOX_NO_EXPORT: 'a plugin does not export the function that was called',
  RTC_ERR_SANDBOX_SCRIPT: 'a sandboxed script threw an error',
  // the OS-level sandbox around subprocesses (sandboxes/subprocess/os-sandbox)
  RTC_ERR_OSBOX_UNAVAILABLE: 'the OS sandbox (bubblewrap) is missing or cannot start here, and the profile does not opt out',
  RTC_ERR_OSBOX_GRANT: 'a grant cannot be expressed by the OS sandbox (write without read, a link out of the grant, another persona\'s state)',
  // event log
  RTC_ERR_EVENTS_CORRUPT: 'an event log line is not valid JSON or does not match the event schema',
  RTC_ERR_EVENTS_CHAIN: 'an event log sequence number or hash chain does not match',
  RTC_ERR_EVENTS_VERSION: 'an event log was written by a newer event schema version',
  RTC_ERR_EVENTS_INVALID: 'an event to append has an invalid type or payload',
  RTC_ERR_EVENTS_CLOSED: 'an event was appended to a closed or failed event log',
  RTC_ERR_EVENTS_BUSY: 'the event log is already open in this process',
  RTC_ERR_EVENTS_WRITE: 'the event log could not be written or synced to disk',
  // broker
  RTC_ERR_BROKER_UNKNOWN_OP: 'a sandboxed script asked the broker for an operation that does not exist',
  RTC_ERR_BROKER_BAD_ARGS: 'a sandboxed script passed malformed arguments to the broker',
  // a composition registered two op extensions (kernel/broker/extension.ts) that name the same op: our bug, never a user's
  RTC_ERR_BROKER_DUPLICATE_OP: 'two op extensions of one composition register the same broker operation',
  // replay
  RTC_ERR_REPLAY_DIVERGED: 'a replayed cycle asked for an effect other than the recorded one',
  RTC_ERR_REPLAY_OUTPUT: 'a replayed plugin call returned something other than the recorded result',
  RTC_ERR_REPLAY_RECORDING: 'a cycle recording (trace line, effect blob, profile or bundle) is missing, damaged or does not match its event',
  RTC_ERR_TRACE_WRITE: 'a cycle trace could not be written durably',
  // history: sealed segments, checkpoints, rollups, retention (features/history-segments, features/history)
  RTC_ERR_HISTORY_SEGMENT: 'a sealed log segment is missing, truncated, out of order, edited or does not match the header that follows it',
  RTC_ERR_HISTORY_CHECKPOINT: 'a history checkpoint does not match the segment it seals or cannot be read',
  RTC_ERR_HISTORY_INDEX: 'the segment index (rollups) does not match the sealed segments',
  RTC_ERR_HISTORY_CONFIG: "a persona's history.yaml (segments, retention) is invalid",
  RTC_ERR_HISTORY_RETENTION: 'a retention or archive request would drop unsealed data or cannot be carried out',
  RTC_ERR_HISTORY_ARCHIVE: 'an archive is missing, incomplete or does not match the digests kept in the chain',
  RTC_ERR_HISTORY_ARCHIVED: 'the events asked for are in an archived segment, not in the live history',
  // review queue (proposals awaiting an operator)
  RTC_ERR_REVIEW_NOT_FOUND: 'no proposal with that id is in the review queue',
  RTC_ERR_REVIEW_EXPIRED: 'a proposal expired before it was decided',
  RTC_ERR_REVIEW_DECIDED: 'a proposal was already accepted or rejected',
  RTC_ERR_REVIEW_TRANSITION: 'a proposal cannot move from its current state to the one asked for',
  RTC_ERR_REVIEW_INVALID: 'a proposal, decision or review policy has an invalid field',
  RTC_ERR_REVIEW_BACKPRESSURE: 'a proposal was refused because the queue is full or its rate limit was reached',
  RTC_ERR_REVIEW_LOG_CORRUPT: 'the proposal log fails its hash chain or records an impossible transition',
  RTC_ERR_REVIEW_LOCKED: 'another process held the review queue lock for too long',
  RTC_ERR_REVIEW_BLOB: 'content stored for a proposal is missing or does not match its digest',
  RTC_ERR_REVIEW_MEMORY_DRIFT: 'long-term memory changed outside the review queue',
  RTC_ERR_REVIEW_BACKEND: "a review queue was opened without the persistence backend its persona's persistence.yaml names",
  RTC_ERR_REVIEW_OPERATOR: 'a review decision has no valid operator credential, or the operator configuration is invalid',
  RTC_ERR_REVIEW_EVIDENCE: "a proposal's evidence cannot be found or no longer has the digest it was proposed with",
  /** an agent's proposal (proposals binding, review.propose tool) is bigger than the queue takes */
  RTC_ERR_REVIEW_TOO_LARGE: 'a proposal is larger than the review queue accepts from an agent',
  /** the proposals binding or review.propose tool is not granted by the persona's profile (bindings: [proposals]) */
  RTC_ERR_REVIEW_NOT_ALLOWED: "the persona's profile does not let its agents propose (bindings: [proposals])",
  // local task ledger
  RTC_ERR_LEDGER_PATH_ESCAPE: 'a ledger path resolves outside the persona directory',
  RTC_ERR_LEDGER_SCHEMA_NEWER: 'the ledger was written by a newer schema version than this runtimectl supports',
  RTC_ERR_LEDGER_CORRUPT: 'the ledger file cannot be read as a ledger',
  RTC_ERR_LEDGER_BACKEND_MISMATCH: 'the ledger file belongs to another persistence backend',
  RTC_ERR_LEDGER_CONFIG: 'the ledger config.yaml does not fit this persona',
  RTC_ERR_LEDGER_INPUT: 'a ledger change has an invalid or oversized value',
  RTC_ERR_LEDGER_NOT_FOUND: 'no task, lease or surprise with that id is in the ledger',
  RTC_ERR_LEDGER_TRANSITION: 'a task cannot move from its current state to the one asked for',
  RTC_ERR_LEDGER_BLOCKED: 'a task is blocked by an open surprise',
  RTC_ERR_LEDGER_LEASE_HELD: 'a resource lease is held by another owner',
  RTC_ERR_LEDGER_LEASE_STALE: 'a resource lease expired but its owner has not been reconciled as gone',
  RTC_ERR_LEDGER_LEASE_NOT_OWNER: 'a lease was renewed or released by someone who does not hold it',
  RTC_ERR_LEDGER_LOCKED: 'another process held the ledger write lock for too long',
  RTC_ERR_LEDGER_IMPORT: 'a ledger export cannot be imported here',
  // persistence backends (features/persistence, plugins/persistence-*)
  RTC_ERR_PERSISTENCE_CONFIG: "a persona's persistence.yaml is invalid or names an unknown backend",
  RTC_ERR_PERSISTENCE_PLUGIN: 'a persistence plugin is missing, of the wrong kind, or does not provide its factory',
  RTC_ERR_PERSISTENCE_BINDING: 'a persistence backend asked for storage its manifest does not declare',
  RTC_ERR_PERSISTENCE_PATH_ESCAPE: 'a persistence path resolves outside the persona directory',
  RTC_ERR_PERSISTENCE_SCHEMA_NEWER: 'persisted state was written by a newer schema version than this runtimectl supports',
  /** issue 27: a shared database a read-only open cannot read until a writable open migrates it (the kernel's tables moved, plugin roles made) */
  RTC_ERR_PERSISTENCE_SCHEMA_OLDER: 'persisted state is at an older schema version that only a writable open migrates',
  RTC_ERR_PERSISTENCE_CORRUPT: "a persistence database or file cannot be read in its backend's format",
  RTC_ERR_PERSISTENCE_READONLY: 'a write was asked of a persistence backend opened read-only',
  RTC_ERR_PERSISTENCE_INPUT: 'a memory or proposal record to store is not valid',
  RTC_ERR_PERSISTENCE_EXPORT: 'an export between persistence backends was refused or failed its check after copying',
  RTC_ERR_PERSISTENCE_STATEMENT: 'a persistence plugin sent a statement its storage binding does not allow',
  RTC_ERR_PERSISTENCE_BACKEND: 'a persistence plugin broke the storage contract (an event batch not stored as handed over, a reserved place written)',
  RTC_ERR_PERSISTENCE_UNREACHABLE: "the persona's database cannot be reached or refused the connection",
  // substrate record (plugin manifest and bundle digests, <state>/substrate.json)
  RTC_ERR_SUBSTRATE_RECORD: 'the substrate record cannot be read or written',
  RTC_ERR_SUBSTRATE_CHANGED: 'a plugin manifest or bundle changed since the substrate was recorded, or a manifest no longer loads',
  /** a plugin recorded from an outside folder (RUNTIMECTL_PLUGIN_PATH, --plugins-dir) that is not on this search path: not damage, not checked */
  RTC_ERR_SUBSTRATE_OFF_PATH: 'a recorded plugin came from a plugin folder that is not on this search path, so it could not be checked',
  // skills
  RTC_ERR_SKILL_INVALID: 'a SKILL.md does not follow the Agent Skills format',
  RTC_ERR_SKILL_UNKNOWN: 'no skill with that name is in the catalog',
  RTC_ERR_SKILL_AMBIGUOUS: 'a bare skill name matches skills in more than one scope',
  RTC_ERR_SKILL_REFERENCE_ESCAPE: 'a skill reference path leaves the skill folder',
  RTC_ERR_SKILL_REFERENCE_NOT_FOUND: 'a skill reference file does not exist or is not a readable file',
  RTC_ERR_SKILL_REFERENCE_TOO_LARGE: 'a skill reference file is larger than the read cap',
  /** `skills install FROM-EVIDENCE` (features/gate/skill-install.ts) */
  RTC_ERR_SKILL_INSTALL: 'a skill cannot be installed from an evidence package (not accepted, tampered, incomplete, or another skill of that name is there)',
  // personas and the continuous loop
  RTC_ERR_PERSONA_NOT_FOUND: 'no persona profile with that id or file',
  RTC_ERR_PERSONA_DUPLICATE: 'two personas in one run share an id',
  RTC_ERR_STATE_DIR: 'the state directory cannot be created or used',
  RTC_ERR_PERSONA_LOCKED: 'another process is writing this persona (it holds the persona\'s writer lock)',
  RTC_ERR_WORKER_FAILED: 'a worker thread of `run --workers` died or could not open its personas',
  RTC_ERR_EXECUTOR_RESULT: 'an executor or budget-policy plugin returned a value outside its contract',
  RTC_ERR_EXECUTOR_PROVIDER_HOME: "an executor's provider home cannot be created or written",
  RTC_ERR_PERSONA_START: 'a persona names a plugin, harness, skill or program that cannot work, so it does not start',
  // giving a persona work: `inbox add`, `dm send` (features/inbox)
  RTC_ERR_WORK_REFUSED: 'a work packet or direct message cannot be given to a persona (too large, a name already taken, a full queue)',
  // composition: harnesses, loop steps, tools, plugin authoring
  RTC_ERR_HARNESS_STEP: 'a composition\'s loop steps are wrong: two registered under one name, two step values under one name, or a step reading or putting a value it did not declare, or one outside its schema',
  RTC_ERR_PLUGIN_KIND: 'a plugin of one kind was named where another kind is needed',
  RTC_ERR_PLUGIN_EXPORT_MISSING: "a plugin manifest lists an export its bundle does not provide",
  RTC_ERR_PLUGIN_REFUSED: 'a plugin that was named exists but its manifest was refused',
  RTC_ERR_TOOL_UNKNOWN: 'no tool with that name is offered to the persona',
  RTC_ERR_TOOL_ARGS: "a tool's arguments do not match its input schema",
  RTC_ERR_TOOL_BUDGET: "the cycle's CPU or wall time for tool calls is spent",
  RTC_ERR_TOOL_MCP_SERVER: 'a mounted MCP server could not start, crashed, flooded its output or answered something that is not MCP',
  RTC_ERR_TOOL_MCP_TIMEOUT: 'a mounted MCP server did not answer within its wall time limit',
  RTC_ERR_TOOL_DENIED: "a tool is not allowed what it needs by the persona's grant",
  RTC_ERR_TOOL_SCRIPT: "a skill's script cannot be offered as a tool (its skill's plugin.yaml does not validate, or two scripts share a name)",
  RTC_ERR_TOOL_RELAY: "tools call (or tools list given RUNTIMECTL_TOOLS_SOCKET) cannot reach the kernel running the persona (its tool relay socket)",
  RTC_ERR_PLUGIN_SCAFFOLD: 'plugins new cannot write the plugin where it was asked',
  // workspaces
  RTC_ERR_WORKSPACE_ID_INVALID: 'an agent or workspace id is not a safe single path segment',
  RTC_ERR_WORKSPACE_RESOURCE_INVALID: 'a workspace resource reference is malformed',
  RTC_ERR_WORKSPACE_RESOURCE_NOT_FOUND: 'a local resource path does not exist',
  RTC_ERR_WORKSPACE_CONFLICT: 'a workspace path is occupied by something the preparer did not create',
  // gate and evidence
  RTC_ERR_GATE_PROFILE_UNKNOWN: 'no gate profile with that name exists',
  RTC_ERR_GATE_TARGET: 'the draft folder a gate was asked to evaluate is missing, not a folder, or overlaps the output folder',
  RTC_ERR_GATE_OUT_NOT_EMPTY: 'the output folder of a gate run exists and is not empty',
  RTC_ERR_GATE_CHECK_UNKNOWN: 'a gate profile names a check no installed gate-check plugin provides',
  RTC_ERR_GATE_CHECK_GRANT: 'a gate profile does not grant a check what its manifest asks for, or lists it before a check it reads',
  RTC_ERR_GATE_CHECK_RESULT: 'a gate-check plugin returned a value outside the gate-check contract',
  RTC_ERR_EVIDENCE_NOT_FOUND: 'an evidence package or selection file does not exist',
  RTC_ERR_EVIDENCE_INVALID: 'an evidence manifest or selection file does not match its schema',
  RTC_ERR_EVIDENCE_MISMATCH: 'an evidence package no longer matches the digests recorded for it',
  // the operator console (features/console) and the live tail (features/logs)
  RTC_ERR_CONSOLE_AUTH: 'a console request that changes state came without the operator credential, or with a wrong one',
  RTC_ERR_CONSOLE_CSRF: 'a state-changing console request came from another site, or without its form token',
  RTC_ERR_CONSOLE_NOT_FOUND: 'no console page, persona, session or evidence package by that name',
  RTC_ERR_CONSOLE_REQUEST: 'a console request is malformed (a missing or invalid field, a host the console does not serve)',
  RTC_ERR_CONSOLE_LISTEN: 'the console could not listen on the address asked for',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * Retired, never reuse: codes that were shipped and are no longer raised. They stay reserved here
 * (and documented) so that no new error takes a name an old script or log may still match.
 */
export const RETIRED_ERROR_CODES = {
  RTC_ERR_CACHE_CORRUPT:
    'a cached bundle or code cache failed its digest check. Retired: a cache entry without a valid seal is ignored and rebuilt, never an error (sandboxes/loader/cache-integrity.ts)',
} as const;

/** Codes whose cause is a limit of the sandbox: the isolate is disposed and rebuilt next use. */
export const LIMIT_CODES: ReadonlySet<ErrorCode> = new Set([
  'RTC_ERR_SANDBOX_MEMORY',
  'RTC_ERR_SANDBOX_CPU',
  'RTC_ERR_SANDBOX_WALL',
  'RTC_ERR_SANDBOX_OUTPUT',
  'RTC_ERR_SANDBOX_TRANSFER',
  'RTC_ERR_SANDBOX_CRASHED',
]);

export interface KernelErrorOptions {
  /** Structured facts for --json output and audit events (file, field path, limit, ...). */
  details?: Record<string, unknown>;
  /** True when the fault is in the kernel itself rather than in the input it was given. */
  internal?: boolean;
  cause?: unknown;
}

export class KernelError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  readonly internal: boolean;

  constructor(code: ErrorCode, message: string, options: KernelErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KernelError';
    this.code = code;
    this.details = options.details ?? {};
    this.internal = options.internal ?? false;
  }

  /** True for the limit errors after which the isolate is rebuilt. */
  get isLimit(): boolean {
    return LIMIT_CODES.has(this.code);
  }

  /** The one line a user sees: `runtimectl: RTC_ERR_X: message`, and where in a plugin's code it was thrown. */
  toLine(): string {
    const at = typeof this.details.at === 'string' ? ` (at ${this.details.at})` : '';
    return `${this.code}: ${this.message}${at}`;
  }

  /** The line without the plugin-code location (what a recorded call's outcome is compared by). */
  toBareLine(): string {
    return `${this.code}: ${this.message}`;
  }

  toJSON(): { name: string; code: ErrorCode; message: string; details: Record<string, unknown> } {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}

export function isKernelError(value: unknown): value is KernelError {
  return value instanceof KernelError;
}

/** Shorthand used across the kernel: `throw kernelError('RTC_ERR_X', 'what, where')`. */
export function kernelError(code: ErrorCode, message: string, options?: KernelErrorOptions): KernelError {
  return new KernelError(code, message, options);
}

/** One line for an error: the kernel code and message, or the error's own first line. */
export function errorLine(error: unknown): string {
  if (isKernelError(error)) return error.toLine();
  return error instanceof Error ? (error.message.split('\n')[0] ?? String(error)) : String(error);
}
