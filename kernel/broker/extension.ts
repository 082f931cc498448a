/**
 * Ops come in extensions, as Deno's do (`deno_core::extension!(deno_fs, ops = [...])` over an
 * injected FileSystem). The kernel owns this contract and the bindings' port and check
 * (bindings.ts) and composes no extension itself: the plugin instance adds the persona's
 * bindings (features/plugin-host/binding-ops.ts) to every table, and every other extension is
 * handed in by the composition with the sandbox kit (SandboxKit.extensions): the sandbox's Deno
 * ops (sandboxes/deno), a gate run's bindings (features/gate), the storage bindings of
 * persistence backends. Each broker answers from
 * the table made of them; an op no extension registers is RTC_ERR_BROKER_UNKNOWN_OP, and two
 * extensions naming one op is a composition bug, refused when the table is made.
 */
import { kernelError } from '../errors.ts';
import type { OpDefinition } from './op.ts';

export interface Extension {
  /** what errors name it by: `kernel.bindings`, `deno`, `deno.run` */
  readonly name: string;
  readonly ops: readonly OpDefinition[];
}

/** Every op a broker can answer, by name, and the extensions they came from. */
export interface OpTable extends ReadonlyMap<string, OpDefinition> {
  readonly extensions: readonly Extension[];
}

export function opTable(extensions: readonly Extension[]): OpTable {
  const ops = new Map<string, OpDefinition>();
  const from = new Map<string, string>();
  for (const extension of extensions) {
    for (const op of extension.ops) {
      const earlier = from.get(op.name);
      if (earlier !== undefined) {
        throw kernelError('RTC_ERR_BROKER_DUPLICATE_OP', `broker operation "${op.name}" is registered by both the ${earlier} and the ${extension.name} extension`, { internal: true, details: { op: op.name, extensions: [earlier, extension.name] } });
      }
      from.set(op.name, extension.name);
      ops.set(op.name, op);
    }
  }
  return Object.assign(ops, { extensions: [...extensions] });
}
