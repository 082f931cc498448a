/** `Deno.env`: reads and writes a private copy of the environment the run was given. */
import { DenoOpError } from '../../../kernel/broker/deno-error.ts';
import { defineOp } from '../../../kernel/broker/op.ts';
import { record, str } from '../../../kernel/broker/args.ts';
import { valueAttempt, wholeKind } from '../../../kernel/broker/attempts.ts';

function name(raw: unknown): { name: string } {
  const n = str(record(raw), 'name');
  if (n === '' || n.includes('=') || n.includes('\0')) throw new DenoOpError('TypeError', `Key contains invalid characters: "${n}"`);
  return { name: n };
}

export const envGet = defineOp({
  name: 'env.get',
  mode: 'sync',
  parse: name,
  needs: (a) => [{ kind: 'env', value: a.name }],
  attempts: valueAttempt('env', 'name'),
  run: (a, ctx) => ctx.env[a.name] ?? null,
});

export const envSet = defineOp({
  name: 'env.set',
  mode: 'sync',
  parse: (raw) => ({ ...name(raw), value: str(record(raw), 'value') }),
  needs: (a) => [{ kind: 'env', value: a.name }],
  attempts: valueAttempt('env', 'name'),
  run: (a, ctx) => {
    ctx.env[a.name] = a.value;
    return null;
  },
});

export const envDelete = defineOp({
  name: 'env.delete',
  mode: 'sync',
  parse: name,
  needs: (a) => [{ kind: 'env', value: a.name }],
  attempts: valueAttempt('env', 'name'),
  run: (a, ctx) => {
    delete ctx.env[a.name];
    return null;
  },
});

// Needs the whole `env` kind; with `--allow-env --deny-env=X` Deno returns all but X.
export const envToObject = defineOp({
  name: 'env.toObject',
  mode: 'sync',
  parse: () => ({}),
  needs: () => [],
  attempts: wholeKind('env'),
  run: (_a, ctx, call) => {
    const whole = ctx.gate.query('env');
    if (whole.state !== 'granted') call.require('env', undefined);
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(ctx.env)) if (!whole.partial || ctx.gate.query('env', k).state === 'granted') out[k] = v;
    call.granted('env', null);
    return out;
  },
});
