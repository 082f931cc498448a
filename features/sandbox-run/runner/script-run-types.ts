/**
 * The contract of `runtimectl sandbox run`, shared by the CLI command, the conformance
 * and containment tests (which call it in-process instead of spawning a node per case) and
 * the gate. Output and exit status follow `deno run`.
 */
export interface ScriptLimits {
  /** isolate heap limit, MB */
  memoryMb: number;
  /** CPU time one synchronous stretch of the script may use, ms */
  cpuMs: number;
  /** wall time for the whole run, ms */
  wallMs: number;
  /** bytes of stdout+stderr the script may write */
  outputBytes: number;
  /** bytes any single value crossing the isolate boundary may have */
  transferBytes: number;
}

export interface ScriptRunRequest {
  /** the module to run (.ts, .js, .mjs, .mts), relative to `cwd` or absolute */
  file: string;
  /** the script's `Deno.args` */
  args: readonly string[];
  /** Deno permission flags exactly as `deno run` takes them: `--allow-read=/tmp`, `-A`, `--deny-env=HOME` */
  permissionFlags: readonly string[];
  /** Deno.cwd() and the base for relative paths */
  cwd: string;
  /** the environment `Deno.env` sees (still filtered by the env permission) */
  env: Readonly<Record<string, string | undefined>>;
  /** sandbox profile name (sandboxes/profiles/<name>.yaml); chooses the tier and the ceiling */
  profile?: string;
  /** overrides of the profile's limits (each may only lower them... or raise up to the profile's own maxima) */
  limits?: Partial<ScriptLimits>;
  /** bytes and files/folders the run may add to the disk, enforced as it writes (kernel/broker/write-quota.ts) */
  writeQuota?: { maxBytes: number; maxEntries: number };
  /**
   * A skill script run as a tool (features/skills/script-tool.ts): its grant's layers instead of
   * `permissionFlags`' (the profile's ceiling is added), who the audit names, the tape its
   * effects go on, the clock it sees, the recorded bundle to run instead of building `file`,
   * and where its capability decisions are audited (default: the runner's).
   */
  layers?: import('../../../kernel/permissions/gate.ts').PermissionLayer[];
  subject?: string;
  tape?: import('../../../kernel/broker/tape.ts').Tape;
  sources?: import('../../../kernel/broker/op.ts').WorldSources;
  bundle?: { code: string; digest: string };
  /** told the code that runs, once it is built (what a recording keeps); not told when the build failed */
  onBundle?: (bundle: { code: string; digest: string }) => void;
  audit?: (event: import('../../../kernel/broker/op.ts').AuditEvent) => void;
  /** the OS sandbox of the script's subprocesses (default: required, the kernel's cache hidden) */
  os?: import('../../../kernel/broker/op.ts').OsSandboxSettings;
}

export interface ScriptRunResult {
  ok: boolean;
  exitCode: number;
  stdout: string;
  stderr: string;
  error: { name: string; message: string; code?: string } | null;
  usage: { cpuMs: number; wallMs: number; heapBytes: number };
  /** what the run added to the disk, when it ran under a write quota */
  writes?: { bytes: number; entries: number; refused: number };
}
