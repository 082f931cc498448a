/**
 * The sandbox host process: runs isolates for the process tier. It holds no authority of
 * its own: every op an isolate asks for is forwarded to the kernel's broker over IPC, and
 * the process is started with an empty environment. If a hostile script takes V8 down
 * (isolated-vm #527), only this process dies; the kernel reports it and starts another.
 */
import { IsolateRuntime, type CompiledSource } from '../isolate/isolate-runtime.ts';
import type { FromHost, ToHost, WireError, WireSource } from './protocol.ts';

let shim: CompiledSource | undefined;
let nextCall = 1;
const waiting = new Map<number, (answer: string) => void>();

function send(message: FromHost): void {
  process.send?.(message);
}

/**
 * A source as V8 compiles it here: with the code cache the kernel sent, if any; a cache V8
 * produces goes back to the kernel, which seals and keeps it (this process writes no file).
 */
function compiled(source: WireSource): CompiledSource {
  const out: CompiledSource = {
    code: source.code,
    digest: source.digest,
    filename: source.filename,
    ...(source.parts ? { parts: source.parts } : {}),
    ...(source.cachedData ? { cachedData: Buffer.from(source.cachedData, 'base64') } : {}),
    onCachedData: (data) => {
      out.cachedData = data;
      send({ t: 'code-cache', digest: source.digest, data: Buffer.from(data).toString('base64') });
    },
  };
  return out;
}

function forward(runId: number, op: string, json: string, mode: 'sync' | 'async'): Promise<string> {
  const callId = nextCall++;
  return new Promise((resolve) => {
    waiting.set(callId, resolve);
    send({ t: 'op', runId, callId, op, json, mode });
  });
}

const instances = new Map<number, IsolateRuntime>();

function runtimeFor(runId: number, limits: Extract<ToHost, { t: 'load' }>['limits'], webAssembly: boolean, args: readonly string[], mode: 'run' | 'test' = 'run', surface: 'plugin' | 'script' = 'plugin'): IsolateRuntime {
  return IsolateRuntime.create(shim!, {
    limits,
    webAssembly,
    args,
    mode,
    surface,
    syncMode: 'reference',
    ops: {
      sync: () => {
        throw new Error('sync ops travel as promises in the process tier');
      },
      async: (op, json) => forward(runId, op, json, 'async'),
      any: (op, json) => forward(runId, op, json, 'async'),
    },
    onOutput: (fd, text) => send({ t: 'out', runId, fd, text }),
  });
}

function wireError(error: unknown): WireError {
  const e = error as { code?: string; message?: string; name?: string; details?: { name?: unknown; message?: unknown; stack?: unknown; code?: unknown } };
  const d = e.details;
  const script = d && typeof d.stack === 'string' ? { script: { name: String(d.name ?? 'Error'), message: String(d.message ?? ''), stack: d.stack, ...(typeof d.code === 'string' ? { code: d.code } : {}) } } : {};
  return { name: e.name ?? 'Error', message: e.message ?? String(error), ...(e.code ? { code: e.code } : {}), ...script };
}

async function load(message: Extract<ToHost, { t: 'load' }>): Promise<void> {
  try {
    const runtime = runtimeFor(message.runId, message.limits, message.webAssembly, message.args ?? [], message.mode ?? 'run');
    instances.set(message.runId, runtime);
    const exports = await runtime.load(compiled(message.source));
    send({ t: 'loaded', runId: message.runId, exports: [...exports] });
  } catch (error) {
    instances.get(message.runId)?.dispose();
    instances.delete(message.runId);
    send({ t: 'loaded', runId: message.runId, error: wireError(error) });
  }
}

async function call(message: Extract<ToHost, { t: 'call' }>): Promise<void> {
  const runtime = instances.get(message.runId);
  // CPU time the isolate spent on this call, for the kernel's metering (a tool call counts against its cycle)
  const cpuBefore = runtime && !runtime.disposed ? runtime.usage().cpuMs : 0;
  const cpuMs = () => (runtime && !runtime.disposed ? Math.max(0, runtime.usage().cpuMs - cpuBefore) : 0);
  try {
    if (!runtime || runtime.disposed) throw Object.assign(new Error('the isolate was disposed'), { name: 'KernelError', code: 'RTC_ERR_SANDBOX_DISPOSED' });
    const value = await runtime.call(message.name, JSON.parse(message.argsJson) as unknown[], false);
    send({ t: 'result', runId: message.runId, callId: message.callId, json: JSON.stringify(value ?? null), cpuMs: cpuMs() });
  } catch (error) {
    send({ t: 'result', runId: message.runId, callId: message.callId, error: wireError(error), cpuMs: cpuMs() });
  }
}

async function run(message: Extract<ToHost, { t: 'run' }>): Promise<void> {
  const { runId } = message;
  let runtime: IsolateRuntime | undefined;
  try {
    // a `run` is always a script's (`sandbox run`): Deno's globals alone
    runtime = runtimeFor(runId, message.limits, message.webAssembly, message.args, 'run', 'script');
    const outcome = await runtime.runMain(compiled(message.source));
    const usage = runtime.usage();
    const limit = outcome.limit ? { code: outcome.limit.code, message: outcome.limit.message } : undefined;
    send({ t: 'done', runId, outcome: { exitCode: outcome.exitCode, error: outcome.error, ...(limit ? { limit } : {}) }, usage });
  } catch (error) {
    const e = error as { code?: string; message?: string; name?: string };
    send({ t: 'done', runId, outcome: { exitCode: 1, error: { name: e.name ?? 'Error', message: e.message ?? String(error), ...(e.code ? { code: e.code } : {}) }, ...(e.code ? { limit: { code: e.code, message: e.message ?? '' } } : {}) }, usage: { cpuMs: 0, wallMs: 0, heapBytes: 0 } });
  } finally {
    runtime?.dispose();
  }
}

process.on('message', (message: ToHost) => {
  switch (message.t) {
    case 'init':
      shim = compiled(message.shim);
      send({ t: 'ready' });
      break;
    case 'run':
      void run(message);
      break;
    case 'load':
      void load(message);
      break;
    case 'call':
      void call(message);
      break;
    case 'op-reply': {
      const resolve = waiting.get(message.callId);
      waiting.delete(message.callId);
      resolve?.(message.answer);
      break;
    }
  }
});
process.on('disconnect', () => process.exit(0));
