/**
 * `Runtimectl.bindings`: the kernel powers Deno has no word for (the persona's task ledger,
 * its event log, its brain memory, its tools, its review queue, a gate check's services), as async methods. Every method is present in every
 * isolate; the broker answers only when the plugin's manifest declares the binding and the
 * persona grants it, and otherwise the call rejects with `Deno.errors.NotCapable`.
 */
import { callAsync, callSync } from './host.ts';

export interface TaskSummary {
  id: string;
  title: string;
  state: string;
}

export function makeRuntimectl(): unknown {
  const ledger = Object.freeze({
    createTask: (task: { title: string; description?: string }) => callAsync<TaskSummary>('binding.ledger.createTask', task),
    list: (filter: { state?: string } = {}) => callAsync<TaskSummary[]>('binding.ledger.list', filter),
  });
  const events = Object.freeze({
    append: (type: string, payload: Record<string, unknown> = {}) => callAsync<{ seq: number }>('binding.events.append', { type, payload }),
  });
  const memory = Object.freeze({
    read: () => callAsync<unknown>('binding.memory.read', {}),
  });
  // Storage bindings (persistence backends and the ledger only; features/persistence/storage/*-bindings.ts):
  // one door per mode, for ops named `storage.*`; plugins/persistence-shared/storage.ts types them.
  const storageOp = (op: string): string => {
    if (typeof op !== 'string' || !op.startsWith('storage.')) throw new TypeError(`"${String(op)}" is not a storage binding`);
    return op;
  };
  const storage = Object.freeze({
    sync: <T>(op: string, args: Record<string, unknown>) => callSync<T>(storageOp(op), args),
    async: <T>(op: string, args: Record<string, unknown>) => callAsync<T>(storageOp(op), args),
  });
  const tools = Object.freeze({
    list: () => callAsync<unknown[]>('binding.tools.list', {}),
    call: (name: string, args: Record<string, unknown> = {}) => callAsync<unknown>('binding.tools.call', { name, args }),
  });
  // The persona's review queue: a proposal with its evidence; the answer says queued or refused (never a throw for a bad proposal).
  const proposals = Object.freeze({
    submit: (proposal: Record<string, unknown>) => callAsync<unknown>('binding.proposals.submit', { proposal }),
    list: () => callAsync<unknown[]>('binding.proposals.list', {}),
  });
  // A gate check's services (kernel/contracts/gate-check.ts): answered only for a check the gate profile grants them.
  const gate = Object.freeze({
    manifest: Object.freeze({
      skill: (text: string) => callAsync<unknown>('binding.gate.manifest.skill', { text }),
      plugin: (text: string) => callAsync<unknown>('binding.gate.manifest.plugin', { text }),
      grant: (manifest: Record<string, unknown>) => callAsync<unknown>('binding.gate.manifest.grant', { manifest }),
    }),
    build: Object.freeze({
      bundle: (entry: string, role: 'module' | 'test') => callAsync<unknown>('binding.gate.build.bundle', { entry, role }),
    }),
    sandbox: Object.freeze({
      test: (file: string, pass: number) => callAsync<unknown>('binding.gate.sandbox.test', { file, pass }),
    }),
    deno: Object.freeze({
      available: () => callAsync<unknown>('binding.gate.deno.available', {}),
      test: (file: string) => callAsync<unknown>('binding.gate.deno.test', { file }),
    }),
  });
  return Object.freeze({ bindings: Object.freeze({ ledger, events, memory, tools, proposals, gate }), storage });
}
