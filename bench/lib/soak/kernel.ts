/**
 * One soak kernel: the real CLI (`runtimectl run --json`; its plugins through
 * RUNTIMECTL_PLUGIN_PATH in `env`), a process of its own, whose stdout
 * is read as the stream of acknowledgements: a `{"type":"cycle"}` object is printed only once
 * the cycle event is durable, so every one seen here must still be in the log after any kill.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../kernel/version.ts';

const BIN = path.join(PROJECT_ROOT, 'bin', 'runtimectl.js');

export interface Ack {
  persona: string;
  cycle: number;
  seq: number;
  outcome: string;
  /** the kernel life it was acknowledged in */
  life: number;
  /** the cycle's problems or defer reason, for the fault count */
  reason: string | null;
  /** an executor session ran (the fake agent) */
  session: boolean;
}

export interface KernelLife {
  life: number;
  pid: number;
  startedAt: number;
  /** cycles acknowledged by this life */
  cycles: number;
  firstCycleAt?: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderrTail(): string;
  kill(signal: NodeJS.Signals): void;
}

export interface KernelStart {
  files: readonly string[];
  stateDir: string;
  everySeconds: number;
  env: NodeJS.ProcessEnv;
  onAck(ack: Ack): void;
}

export function startKernel(life: number, o: KernelStart): KernelLife {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--no-node-snapshot', BIN, 'run', '--json', '--persona', ...o.files, '--state-dir', o.stateDir, '--every', String(o.everySeconds), '--stop-grace', '20'],
    { cwd: path.dirname(o.stateDir), env: o.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  let buffer = '';
  const state: KernelLife = {
    life,
    pid: child.pid ?? -1,
    startedAt: Date.now(),
    cycles: 0,
    exited: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal }))),
    stderrTail: () => stderr.slice(-4000),
    kill: (signal) => void child.kill(signal),
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim() === '') continue;
      let c: Record<string, unknown>;
      try {
        c = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      if (c.type !== 'cycle') continue;
      state.cycles += 1;
      state.firstCycleAt ??= Date.now();
      const ack: Ack = {
        persona: String(c.persona_id),
        cycle: Number(c.cycle),
        seq: Number(c.seq),
        outcome: String(c.outcome),
        life,
        reason: typeof c.defer_reason === 'string' ? c.defer_reason : null,
        session: typeof c.session_manifest === 'string',
      };
      o.onAck(ack);
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-20_000);
  });
  return state;
}
