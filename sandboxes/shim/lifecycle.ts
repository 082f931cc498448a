/**
 * The end of a run, as Deno and Node have it: the exit code a script set without exiting
 * (`Deno.exitCode`, `process.exitCode`), and the hooks that run when the event loop is empty
 * (`process.on("beforeExit")`, which may start more work) and when the run ends
 * (`process.on("exit")`). The runtime asks for both through the dispatcher
 * (`\0rtc.lifecycle`); parts register hooks only once loaded, so a script that uses none
 * costs nothing here.
 */
type Phase = 'beforeExit' | 'exit';
type Hook = (code: number) => void;

let exitCode: number | undefined;
const hooks: Record<Phase, Hook[]> = { beforeExit: [], exit: [] };

export function getExitCode(): number | undefined {
  return exitCode;
}

/** Deno's and Node's rule: an integer (or integer string) becomes the code; undefined/null clears it. */
export function setExitCode(value: unknown): void {
  if (value === undefined || value === null) {
    exitCode = undefined;
    return;
  }
  const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) {
    const received = typeof value === 'string' ? `type string ('${value}')` : `type ${typeof value} (${String(value)})`;
    const error = new TypeError(`The "code" argument must be of type number. Received ${received}`) as TypeError & { code: string };
    error.code = 'ERR_INVALID_ARG_TYPE';
    throw error;
  }
  exitCode = n;
}

export function onLifecycle(phase: Phase, hook: Hook): void {
  hooks[phase].push(hook);
}

/** Runs the phase's hooks; answers the exit code the run ends with if it ends now. */
export function runLifecycle(phase: Phase): number {
  const code = exitCode ?? 0;
  for (const hook of hooks[phase]) hook(code);
  return (exitCode ?? 0) & 0xff;
}
