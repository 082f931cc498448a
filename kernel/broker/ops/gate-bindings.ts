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
 * What each does is the gate's (features/gate/bindings.ts); the ops only check and forward.
 */
import { DenoOpError } from '../deno-error.ts';
import { defineOp } from '../op.ts';
import { record } from './args.ts';
import { admit, forward, text, unavailable } from './bindings.ts';

/** Longest SKILL.md or plugin.yaml text the manifest binding parses. */
const MAX_MANIFEST_TEXT = 1 << 20;
const MAX_PATH = 4096;

function gateImpl<K extends 'manifest' | 'build' | 'sandbox' | 'deno'>(b: ReturnType<typeof admit>, key: K): NonNullable<NonNullable<typeof b.impl.gate>[K]> {
  const impl = b.impl.gate?.[key];
  if (!impl) unavailable(`gate.${key}`);
  return impl as NonNullable<NonNullable<typeof b.impl.gate>[K]>;
}

function manifestText(raw: unknown): { text: string } {
  return { text: text(record(raw), 'text', MAX_MANIFEST_TEXT, true) };
}

export const bindingGateManifestSkill = defineOp({
  name: 'binding.gate.manifest.skill',
  mode: 'async',
  parse: manifestText,
  needs: () => [],
  async run(a, ctx, call) {
    const impl = gateImpl(admit(ctx, call, 'gate.manifest'), 'manifest');
    return forward(() => impl.skill(a.text));
  },
});

export const bindingGateManifestPlugin = defineOp({
  name: 'binding.gate.manifest.plugin',
  mode: 'async',
  parse: manifestText,
  needs: () => [],
  async run(a, ctx, call) {
    const impl = gateImpl(admit(ctx, call, 'gate.manifest'), 'manifest');
    return forward(() => impl.plugin(a.text));
  },
});

export const bindingGateManifestGrant = defineOp({
  name: 'binding.gate.manifest.grant',
  mode: 'async',
  parse: (raw) => ({ manifest: record(record(raw).manifest) }),
  needs: () => [],
  async run(a, ctx, call) {
    const impl = gateImpl(admit(ctx, call, 'gate.manifest'), 'manifest');
    return forward(() => impl.grant(a.manifest));
  },
});

export const bindingGateBuild = defineOp({
  name: 'binding.gate.build.bundle',
  mode: 'async',
  parse(raw) {
    const o = record(raw);
    const role = o.role;
    if (role !== 'module' && role !== 'test') throw new DenoOpError('TypeError', '"role" must be "module" or "test"');
    return { entry: text(o, 'entry', MAX_PATH, true), role: role as 'module' | 'test' };
  },
  needs: () => [],
  async run(a, ctx, call) {
    const impl = gateImpl(admit(ctx, call, 'gate.build'), 'build');
    return forward(() => impl.bundle(a.entry, a.role));
  },
});

export const bindingGateSandboxTest = defineOp({
  name: 'binding.gate.sandbox.test',
  mode: 'async',
  parse(raw) {
    const o = record(raw);
    const pass = o.pass;
    if (typeof pass !== 'number' || !Number.isInteger(pass) || pass < 1 || pass > 8) throw new DenoOpError('RangeError', '"pass" must be an integer from 1 to 8');
    return { file: text(o, 'file', MAX_PATH, true), pass };
  },
  needs: () => [],
  async run(a, ctx, call) {
    const impl = gateImpl(admit(ctx, call, 'gate.sandbox'), 'sandbox');
    return forward(() => impl.test(a.file, a.pass));
  },
});

export const bindingGateDenoAvailable = defineOp({
  name: 'binding.gate.deno.available',
  mode: 'async',
  parse: () => ({}),
  needs: () => [],
  async run(_a, ctx, call) {
    const impl = gateImpl(admit(ctx, call, 'gate.deno'), 'deno');
    return forward(() => impl.available());
  },
});

export const bindingGateDenoTest = defineOp({
  name: 'binding.gate.deno.test',
  mode: 'async',
  parse: (raw) => ({ file: text(record(raw), 'file', MAX_PATH, true) }),
  needs: () => [],
  async run(a, ctx, call) {
    const impl = gateImpl(admit(ctx, call, 'gate.deno'), 'deno');
    return forward(() => impl.test(a.file));
  },
});

export const GATE_BINDING_OPS = [
  bindingGateManifestSkill,
  bindingGateManifestPlugin,
  bindingGateManifestGrant,
  bindingGateBuild,
  bindingGateSandboxTest,
  bindingGateDenoAvailable,
  bindingGateDenoTest,
];
