/**
 * The `gate.*` bindings a gate-check plugin may declare (kernel/contracts/gate-check.ts),
 * each answered only when the check's manifest declares it and the gate profile grants it
 * to that check:
 *
 *   gate.manifest  parse SKILL.md and plugin.yaml with the kernel's own schemas, and say
 *                  what a manifest asks beyond the gate (pure: no file, no network)
 *   gate.build     bundle one file of the draft into the package's fresh build cache
 *   gate.sandbox   run one built test file of the draft in the gate's sandbox (`deno test`)
 *   gate.deno      run one test file of the draft under the real Deno
 *
 * What each does is the gate's (bindings.ts); the ops only check and forward. They are the gate's
 * own op extension, handed in with the kit of a gate run (run-gate.ts): no other composition
 * serves them, so a plugin outside a gate run cannot even name one.
 */
import { DenoOpError } from '../../kernel/broker/deno-error.ts';
import { bindingAttempt } from '../../kernel/broker/attempts.ts';
import { defineOp, type OpDefinition } from '../../kernel/broker/op.ts';
import type { Extension } from '../../kernel/broker/extension.ts';
import { record } from '../../kernel/broker/args.ts';
import { admit, forward, text, unavailable, type BindingImplementations } from '../../kernel/broker/bindings.ts';

/** Longest SKILL.md or plugin.yaml text the manifest binding parses. */
const MAX_MANIFEST_TEXT = 1 << 20;
const MAX_PATH = 4096;

type Gate = NonNullable<BindingImplementations['gate']>;
type Service = keyof Gate;

/** One `binding.gate.<service>.<method>` op: admitted for `gate.<service>`, parsed, forwarded. */
function gateOp<K extends Service, A>(service: K, method: string, parse: (raw: unknown) => A, call: (impl: NonNullable<Gate[K]>, args: A) => unknown) {
  return defineOp({
    name: `binding.gate.${service}.${method}`,
    mode: 'async',
    parse,
    needs: () => [],
    attempts: bindingAttempt(`gate.${service}`),
    async run(args: A, ctx, opCall) {
      const b = admit(ctx, opCall, `gate.${service}`);
      const impl = b.impl.gate?.[service];
      if (!impl) unavailable(`gate.${service}`);
      return forward(() => call(impl as NonNullable<Gate[K]>, args));
    },
  });
}

const manifestText = (raw: unknown) => ({ text: text(record(raw), 'text', MAX_MANIFEST_TEXT, true) });
const fileArg = (raw: unknown) => ({ file: text(record(raw), 'file', MAX_PATH, true) });

export const GATE_BINDING_OPS: Extension = {
  name: 'gate.bindings',
  ops: [
    gateOp('manifest', 'skill', manifestText, (impl, a) => impl.skill(a.text)),
    gateOp('manifest', 'plugin', manifestText, (impl, a) => impl.plugin(a.text)),
    gateOp('manifest', 'grant', (raw) => ({ manifest: record(record(raw).manifest) }), (impl, a) => impl.grant(a.manifest)),
    gateOp(
      'build',
      'bundle',
      (raw) => {
        const o = record(raw);
        if (o.role !== 'module' && o.role !== 'test') throw new DenoOpError('TypeError', '"role" must be "module" or "test"');
        return { entry: text(o, 'entry', MAX_PATH, true), role: o.role as 'module' | 'test' };
      },
      (impl, a) => impl.bundle(a.entry, a.role),
    ),
    gateOp(
      'sandbox',
      'test',
      (raw) => {
        const o = record(raw);
        const pass = o.pass;
        if (typeof pass !== 'number' || !Number.isInteger(pass) || pass < 1 || pass > 8) throw new DenoOpError('RangeError', '"pass" must be an integer from 1 to 8');
        return { ...fileArg(raw), pass };
      },
      (impl, a) => impl.test(a.file, a.pass),
    ),
    gateOp('deno', 'available', () => ({}), (impl) => impl.available()),
    gateOp('deno', 'test', fileArg, (impl, a) => impl.test(a.file)),
  ] as OpDefinition[],
};
