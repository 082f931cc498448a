/**
 * `crypto.subtle`, served by the host's WebCrypto (Node's `crypto.webcrypto.subtle`, the
 * same algorithms Deno has). Keys never enter the isolate: a CryptoKey is a host resource
 * (kernel/broker/resources.ts) and the script holds its rid with the key's public facts (type,
 * extractable, algorithm, usages); only `exportKey` of an extractable key gives bytes back.
 * Arguments travel as JSON with bytes as `{ "$bytes": base64 }` and keys as `{ "$key": rid }`.
 * Errors keep WebCrypto's class: a DOMException (by name) or a TypeError. No permission is
 * needed, as in Deno; every answer is recorded like any op, so a replay needs no key.
 */
import { webcrypto } from 'node:crypto';
import { DenoOpError } from '../../../kernel/broker/deno-error.ts';
import { defineOp, type BrokerContext } from '../../../kernel/broker/op.ts';
import { resourcesOf, type Resource } from '../../../kernel/broker/resources.ts';
import { record, str } from '../../../kernel/broker/args.ts';

type HostKey = webcrypto.CryptoKey;

interface KeyResource extends Resource {
  kind: 'cryptoKey';
  key: HostKey;
}

const METHODS = new Set(['encrypt', 'decrypt', 'sign', 'verify', 'digest', 'generateKey', 'deriveKey', 'deriveBits', 'importKey', 'exportKey', 'wrapKey', 'unwrapKey']);

function decode(value: unknown, ctx: BrokerContext): unknown {
  if (Array.isArray(value)) return value.map((v) => decode(v, ctx));
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if (typeof o.$bytes === 'string') return new Uint8Array(Buffer.from(o.$bytes, 'base64'));
  if ('$key' in o) return resourcesOf(ctx).get<KeyResource>(o.$key, 'cryptoKey').key;
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, decode(v, ctx)]));
}

function describeKey(key: HostKey, ctx: BrokerContext): Record<string, unknown> {
  const rid = resourcesOf(ctx).add({ kind: 'cryptoKey', key, close: () => undefined } as KeyResource);
  return { $key: rid, type: key.type, extractable: key.extractable, algorithm: encode(key.algorithm, ctx), usages: [...key.usages] };
}

/** Node 20 does not export its CryptoKey class; its instances tag themselves. */
function isHostKey(value: unknown): value is HostKey {
  return Object.prototype.toString.call(value) === '[object CryptoKey]';
}

function encode(value: unknown, ctx: BrokerContext): unknown {
  if (value instanceof ArrayBuffer) return { $bytes: Buffer.from(value).toString('base64') };
  if (ArrayBuffer.isView(value)) return { $bytes: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  if (isHostKey(value)) return describeKey(value, ctx);
  if (Array.isArray(value)) return value.map((v) => encode(v, ctx));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encode(v, ctx)]));
  return value;
}

export const subtleCall = defineOp({
  name: 'crypto.subtle',
  mode: 'async',
  parse: (raw) => {
    const o = record(raw);
    const method = str(o, 'method');
    if (!METHODS.has(method)) throw new DenoOpError('TypeError', `SubtleCrypto has no method "${method}"`);
    if (!Array.isArray(o.args)) throw new DenoOpError('TypeError', 'arguments must be a list');
    return { method, args: o.args as unknown[] };
  },
  needs: () => [],
  async run(a, ctx) {
    const args = a.args.map((v) => decode(v, ctx));
    try {
      const fn = (webcrypto.subtle as unknown as Record<string, (...x: unknown[]) => Promise<unknown>>)[a.method]!;
      return encode(await fn.apply(webcrypto.subtle, args), ctx);
    } catch (error) {
      const e = error as { name?: string; message?: string };
      if (e?.name === 'TypeError' || error instanceof TypeError) throw new DenoOpError('TypeError', e.message ?? String(error));
      // Node names a few WebCrypto errors its own way; Deno uses the standard's names.
      const name = (e?.name ?? 'OperationError').replace(/Exception$/, 'Error');
      const message = e?.message === 'key is not extractable' ? 'Key is not extractable' : (e?.message ?? String(error));
      throw new DenoOpError(`DOMException:${name}` as never, message);
    }
  },
});
