/**
 * `crypto.subtle` (`SubtleCrypto`), `CryptoKey` and the `Crypto` class. Every operation is
 * done by the host's WebCrypto (sandboxes/deno/ops/subtle.ts); a CryptoKey here holds only
 * the rid of the host's key and its public facts. BufferSource arguments are copied to the
 * host at the call, as WebCrypto copies them.
 */
import { callAsync } from '../host.ts';
import { base64ToBytes, bytesToBase64 } from '../web/base64.ts';
import { crypto as cryptoObject } from '../web/crypto.ts';
import { defineGlobal } from '../parts-loader.ts';
import { PRIVATE_INSPECT, inspectAs } from '../web/inspect.ts';

const INTERNAL = Symbol('internal');
const ridOf = new WeakMap<CryptoKey, number>();

export class CryptoKey {
  readonly #type: string;
  readonly #extractable: boolean;
  readonly #algorithm: Record<string, unknown>;
  readonly #usages: string[];

  constructor(...args: unknown[]) {
    if (args[1] !== INTERNAL) throw new TypeError('Illegal constructor');
    const d = args[0] as { type: string; extractable: boolean; algorithm: Record<string, unknown>; usages: string[] };
    this.#type = d.type;
    this.#extractable = d.extractable;
    this.#algorithm = d.algorithm;
    this.#usages = d.usages;
  }

  get type(): string {
    return this.#type;
  }
  get extractable(): boolean {
    return this.#extractable;
  }
  get algorithm(): Record<string, unknown> {
    return this.#algorithm;
  }
  get usages(): string[] {
    return this.#usages;
  }

  get [Symbol.toStringTag](): string {
    return 'CryptoKey';
  }

  [PRIVATE_INSPECT](): unknown {
    if (!(#type in this)) return 'CryptoKey';
    return inspectAs('CryptoKey', { type: this.#type, extractable: this.#extractable, algorithm: this.#algorithm, usages: this.#usages });
  }
}

function isBufferSource(value: unknown): value is ArrayBuffer | ArrayBufferView {
  return value instanceof ArrayBuffer || ArrayBuffer.isView(value);
}

function bytesOf(value: ArrayBuffer | ArrayBufferView): Uint8Array {
  return value instanceof ArrayBuffer ? new Uint8Array(value) : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
}

function toWire(value: unknown): unknown {
  if (isBufferSource(value)) return { $bytes: bytesToBase64(bytesOf(value)) };
  if (value instanceof CryptoKey) return { $key: ridOf.get(value) };
  if (Array.isArray(value)) return value.map(toWire);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toWire(v)]));
  return value;
}

function fromWire(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromWire);
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if (typeof o.$bytes === 'string') return base64ToBytes(o.$bytes).slice().buffer;
  if ('$key' in o) {
    const key = new CryptoKey({ type: o.type, extractable: o.extractable, algorithm: fromAlgorithm(o.algorithm), usages: o.usages }, INTERNAL);
    ridOf.set(key, o.$key as number);
    return key;
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, fromWire(v)]));
}

/**
 * A key's algorithm: its byte fields (publicExponent) are Uint8Arrays, as WebCrypto gives
 * them, and an HMAC key lists `length` before `hash`, as Deno does.
 */
function fromAlgorithm(value: unknown): Record<string, unknown> {
  const o = (value ?? {}) as Record<string, unknown>;
  const entries = Object.entries(o).map(([k, v]) => [k, v !== null && typeof v === 'object' && typeof (v as { $bytes?: unknown }).$bytes === 'string' ? base64ToBytes((v as { $bytes: string }).$bytes) : v] as [string, unknown]);
  if (o.name === 'HMAC') entries.sort(([a], [b]) => ['name', 'length', 'hash'].indexOf(a) - ['name', 'length', 'hash'].indexOf(b));
  return Object.fromEntries(entries);
}

const DIGESTS = new Set(['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512']);

function bufferSource(value: unknown, method: string, position: number): void {
  if (!isBufferSource(value)) throw new TypeError(`Failed to execute '${method}' on 'SubtleCrypto': Argument ${position} can not be converted to a BufferSource`);
}

function keyArg(value: unknown, method: string, position: number): void {
  if (!(value instanceof CryptoKey)) throw new TypeError(`Failed to execute '${method}' on 'SubtleCrypto': Argument ${position} is not of type 'CryptoKey'.`);
}

async function host(method: string, args: unknown[]): Promise<unknown> {
  return fromWire(await callAsync('crypto.subtle', { method, args: args.map(toWire) }));
}

function needArgs(args: IArguments, n: number, method: string): void {
  if (args.length < n) throw new TypeError(`Failed to execute '${method}' on 'SubtleCrypto': ${n} arguments required, but only ${args.length} present`);
}

export class SubtleCrypto {
  constructor(...args: unknown[]) {
    if (args[0] !== INTERNAL) throw new TypeError('Illegal constructor');
  }

  async digest(algorithm: unknown, data: unknown): Promise<unknown> {
    needArgs(arguments, 2, 'digest');
    const name = typeof algorithm === 'string' ? algorithm : String((algorithm as { name?: unknown } | null)?.name ?? '');
    if (!DIGESTS.has(name.toUpperCase())) throw new DOMException(`Algorithm '${name}' is not supported`, 'NotSupportedError');
    bufferSource(data, 'digest', 2);
    return host('digest', [algorithm, data]);
  }

  async encrypt(algorithm: unknown, key: unknown, data: unknown): Promise<unknown> {
    needArgs(arguments, 3, 'encrypt');
    keyArg(key, 'encrypt', 2);
    bufferSource(data, 'encrypt', 3);
    return host('encrypt', [algorithm, key, data]);
  }

  async decrypt(algorithm: unknown, key: unknown, data: unknown): Promise<unknown> {
    needArgs(arguments, 3, 'decrypt');
    keyArg(key, 'decrypt', 2);
    bufferSource(data, 'decrypt', 3);
    return host('decrypt', [algorithm, key, data]);
  }

  async sign(algorithm: unknown, key: unknown, data: unknown): Promise<unknown> {
    needArgs(arguments, 3, 'sign');
    keyArg(key, 'sign', 2);
    bufferSource(data, 'sign', 3);
    return host('sign', [algorithm, key, data]);
  }

  async verify(algorithm: unknown, key: unknown, signature: unknown, data: unknown): Promise<unknown> {
    needArgs(arguments, 4, 'verify');
    keyArg(key, 'verify', 2);
    bufferSource(signature, 'verify', 3);
    bufferSource(data, 'verify', 4);
    return host('verify', [algorithm, key, signature, data]);
  }

  async generateKey(algorithm: unknown, extractable: boolean, usages: string[]): Promise<unknown> {
    needArgs(arguments, 3, 'generateKey');
    return host('generateKey', [algorithm, Boolean(extractable), [...usages]]);
  }

  async importKey(format: string, keyData: unknown, algorithm: unknown, extractable: boolean, usages: string[]): Promise<unknown> {
    needArgs(arguments, 5, 'importKey');
    if (format !== 'jwk') bufferSource(keyData, 'importKey', 2);
    return host('importKey', [String(format), keyData, algorithm, Boolean(extractable), [...usages]]);
  }

  async exportKey(format: string, key: unknown): Promise<unknown> {
    needArgs(arguments, 2, 'exportKey');
    keyArg(key, 'exportKey', 2);
    return host('exportKey', [String(format), key]);
  }

  async deriveBits(algorithm: unknown, baseKey: unknown, length?: number | null): Promise<unknown> {
    needArgs(arguments, 2, 'deriveBits');
    keyArg(baseKey, 'deriveBits', 2);
    return host('deriveBits', length === undefined ? [algorithm, baseKey] : [algorithm, baseKey, length]);
  }

  async deriveKey(algorithm: unknown, baseKey: unknown, derivedKeyType: unknown, extractable: boolean, usages: string[]): Promise<unknown> {
    needArgs(arguments, 5, 'deriveKey');
    keyArg(baseKey, 'deriveKey', 2);
    return host('deriveKey', [algorithm, baseKey, derivedKeyType, Boolean(extractable), [...usages]]);
  }

  async wrapKey(format: string, key: unknown, wrappingKey: unknown, wrapAlgorithm: unknown): Promise<unknown> {
    needArgs(arguments, 4, 'wrapKey');
    keyArg(key, 'wrapKey', 2);
    keyArg(wrappingKey, 'wrapKey', 3);
    return host('wrapKey', [String(format), key, wrappingKey, wrapAlgorithm]);
  }

  async unwrapKey(format: string, wrappedKey: unknown, unwrappingKey: unknown, unwrapAlgorithm: unknown, unwrappedKeyAlgorithm: unknown, extractable: boolean, usages: string[]): Promise<unknown> {
    needArgs(arguments, 7, 'unwrapKey');
    bufferSource(wrappedKey, 'unwrapKey', 2);
    keyArg(unwrappingKey, 'unwrapKey', 3);
    return host('unwrapKey', [String(format), wrappedKey, unwrappingKey, unwrapAlgorithm, unwrappedKeyAlgorithm, Boolean(extractable), [...usages]]);
  }

  get [Symbol.toStringTag](): string {
    return 'SubtleCrypto';
  }

  [PRIVATE_INSPECT](): unknown {
    return 'SubtleCrypto {}';
  }
}

export class Crypto {
  constructor(...args: unknown[]) {
    if (args[0] !== INTERNAL) throw new TypeError('Illegal constructor');
  }
  get [Symbol.toStringTag](): string {
    return 'Crypto';
  }
}

export const subtle = new SubtleCrypto(INTERNAL);

// The shim's crypto object becomes an instance of Crypto, as Deno's is.
Object.setPrototypeOf(cryptoObject, Crypto.prototype);
Object.defineProperty(cryptoObject, 'subtle', { value: subtle, enumerable: true, configurable: true, writable: false });
defineGlobal('CryptoKey', CryptoKey);
defineGlobal('SubtleCrypto', SubtleCrypto);
defineGlobal('Crypto', Crypto);
