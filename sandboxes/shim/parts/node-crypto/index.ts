/**
 * `node:crypto`: hashes, HMAC and key derivation computed in the isolate by @noble/hashes
 * (pure code, synchronous as Node's are); random bytes from the web `crypto`, which is the
 * broker's entropy op (recorded for replay like every random draw); `webcrypto`/`subtle` are
 * the web crypto the sandbox already has. Ciphers, signatures and key objects are outside the
 * sandbox's subset and say so.
 */
import { md5, ripemd160, sha1 } from '@noble/hashes/legacy.js';
import { sha224, sha256, sha384, sha512, sha512_224, sha512_256 } from '@noble/hashes/sha2.js';
import { sha3_224, sha3_256, sha3_384, sha3_512, shake128, shake256 } from '@noble/hashes/sha3.js';
import { hmac } from '@noble/hashes/hmac.js';
import { pbkdf2 } from '@noble/hashes/pbkdf2.js';
import { scrypt } from '@noble/hashes/scrypt.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { unsupportedFunction } from '../../unsupported.ts';
import { setImmediate } from '../../web/timers.ts';
import { Buffer } from '../node-buffer/index.ts';
import { invalidArgType, nodeError, validateFunction, validateInteger } from '../node-errors/index.ts';

type Bytes = Uint8Array;
interface HashInstance {
  update(data: Bytes): HashInstance;
  digest(): Bytes;
  clone(): HashInstance;
}
interface HashFn {
  (data: Bytes): Bytes;
  create(opts?: unknown): HashInstance;
  outputLen: number;
  blockLen: number;
}
type BufferClass = { from(d: unknown, o?: unknown, l?: number): Bytes & { toString(e?: string): string }; alloc(n: number): Bytes; isBuffer(v: unknown): boolean };
const B = Buffer as unknown as BufferClass;

const HASHES: Record<string, HashFn> = {
  md5: md5 as unknown as HashFn,
  sha1: sha1 as unknown as HashFn,
  ripemd160: ripemd160 as unknown as HashFn,
  rmd160: ripemd160 as unknown as HashFn,
  sha224: sha224 as unknown as HashFn,
  sha256: sha256 as unknown as HashFn,
  sha384: sha384 as unknown as HashFn,
  sha512: sha512 as unknown as HashFn,
  'sha512-224': sha512_224 as unknown as HashFn,
  'sha512-256': sha512_256 as unknown as HashFn,
  'sha3-224': sha3_224 as unknown as HashFn,
  'sha3-256': sha3_256 as unknown as HashFn,
  'sha3-384': sha3_384 as unknown as HashFn,
  'sha3-512': sha3_512 as unknown as HashFn,
  shake128: shake128 as unknown as HashFn,
  shake256: shake256 as unknown as HashFn,
};

function hashFn(algorithm: unknown): HashFn {
  if (typeof algorithm !== 'string') throw invalidArgType('algorithm', 'of type string', algorithm);
  const name = algorithm.toLowerCase().replace(/^rsa-/, '');
  const found = HASHES[name] ?? HASHES[name.replace(/^sha-/, 'sha')];
  if (!found) throw new TypeError(`Digest method not supported: ${algorithm}`);
  return found;
}

function toBytes(data: unknown, encoding: string | undefined, name = 'data'): Bytes {
  if (typeof data === 'string') return B.from(data, encoding ?? 'utf8');
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  throw invalidArgType(name, 'of type string or an instance of Buffer, TypedArray, or DataView', data);
}

function output(bytes: Bytes, encoding: string | undefined): unknown {
  const buffer = B.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return encoding === undefined || encoding === 'buffer' ? buffer : buffer.toString(encoding);
}

export class Hash {
  #state: HashInstance;
  #done = false;

  constructor(algorithm: string, options?: { outputLength?: number }, state?: HashInstance) {
    const fn = hashFn(algorithm);
    this.#state = state ?? (options?.outputLength !== undefined ? fn.create({ dkLen: options.outputLength }) : fn.create());
  }

  update(data: unknown, inputEncoding?: string): this {
    if (this.#done) throw nodeError(Error, 'ERR_CRYPTO_HASH_FINALIZED', 'Digest already called');
    this.#state.update(toBytes(data, inputEncoding));
    return this;
  }

  digest(encoding?: string): unknown {
    if (this.#done) throw nodeError(Error, 'ERR_CRYPTO_HASH_FINALIZED', 'Digest already called');
    this.#done = true;
    return output(this.#state.digest(), encoding);
  }

  copy(): Hash {
    if (this.#done) throw nodeError(Error, 'ERR_CRYPTO_HASH_FINALIZED', 'Digest already called');
    return new Hash('sha256', undefined, this.#state.clone());
  }
}

export class Hmac {
  #state: HashInstance;
  #done = false;

  constructor(algorithm: string, key: unknown) {
    const fn = hashFn(algorithm);
    this.#state = (hmac as unknown as { create(h: HashFn, k: Bytes): HashInstance }).create(fn, toBytes(key, undefined, 'key'));
  }

  update(data: unknown, inputEncoding?: string): this {
    if (this.#done) throw nodeError(Error, 'ERR_CRYPTO_HASH_FINALIZED', 'Digest already called');
    this.#state.update(toBytes(data, inputEncoding));
    return this;
  }

  digest(encoding?: string): unknown {
    if (this.#done) return output(new Uint8Array(0), encoding);
    this.#done = true;
    return output(this.#state.digest(), encoding);
  }
}

// ---- randomness: the web crypto, which is the broker's entropy op -----------------------

function fillRandom(bytes: Bytes): Bytes {
  for (let at = 0; at < bytes.byteLength; at += 65536) crypto.getRandomValues(bytes.subarray(at, Math.min(at + 65536, bytes.byteLength)));
  return bytes;
}

function randomBytes(size: number, callback?: (err: Error | null, buf: Bytes) => void): Bytes | void {
  validateInteger(size, 'size', 0, 2 ** 31 - 1);
  const buffer = fillRandom(B.alloc(size));
  if (callback === undefined) return buffer;
  validateFunction(callback, 'callback');
  setImmediate(() => callback(null, buffer));
}

function randomFillSync<T extends ArrayBufferView>(buffer: T, offset = 0, size?: number): T {
  if (!ArrayBuffer.isView(buffer)) throw invalidArgType('buf', 'an instance of ArrayBuffer or ArrayBufferView', buffer);
  const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  fillRandom(bytes.subarray(offset, size === undefined ? undefined : offset + size));
  return buffer;
}

function randomFill(buffer: ArrayBufferView, ...rest: unknown[]): void {
  const callback = rest.pop() as (err: Error | null, buf: ArrayBufferView) => void;
  validateFunction(callback, 'callback');
  randomFillSync(buffer, rest[0] as number | undefined, rest[1] as number | undefined);
  setImmediate(() => callback(null, buffer));
}

function randomInt(min: number, max?: number | ((err: Error | null, n: number) => void), callback?: (err: Error | null, n: number) => void): number | void {
  if (typeof max !== 'number') {
    callback = max;
    max = min;
    min = 0;
  }
  if (!Number.isSafeInteger(min)) throw invalidArgType('min', 'a safe integer', min);
  if (!Number.isSafeInteger(max)) throw invalidArgType('max', 'a safe integer', max);
  if (max <= min) throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "max" is out of range. It must be greater than the value of "min" (${min}). Received ${max}`);
  const range = max - min;
  if (range > 2 ** 48 - 1) throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "max - min" is out of range. It must be <= 281474976710655. Received ${range}`);
  // rejection sampling over 48-bit draws: no modulo bias
  const limit = 2 ** 48 - (2 ** 48 % range);
  let n: number;
  do {
    const b = fillRandom(new Uint8Array(6));
    n = b.reduce((acc, byte) => acc * 256 + byte, 0);
  } while (n >= limit);
  const result = min + (n % range);
  if (callback === undefined) return result;
  validateFunction(callback, 'callback');
  setImmediate(() => callback!(null, result));
}

function timingSafeEqual(a: ArrayBufferView, b: ArrayBufferView): boolean {
  if (!ArrayBuffer.isView(a)) throw invalidArgType('buf1', 'an instance of ArrayBuffer, Buffer, TypedArray, or DataView', a);
  if (!ArrayBuffer.isView(b)) throw invalidArgType('buf2', 'an instance of ArrayBuffer, Buffer, TypedArray, or DataView', b);
  if (a.byteLength !== b.byteLength) throw nodeError(RangeError, 'ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH', 'Input buffers must have the same byte length');
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ y[i]!;
  return diff === 0;
}

// ---- key derivation ----------------------------------------------------------------------

function pbkdf2Sync(password: unknown, salt: unknown, iterations: number, keylen: number, digest: string): Bytes {
  validateInteger(iterations, 'iterations', 1, 2 ** 31 - 1);
  validateInteger(keylen, 'keylen', 0, 2 ** 31 - 1);
  const key = pbkdf2(hashFn(digest) as never, toBytes(password, undefined, 'password'), toBytes(salt, undefined, 'salt'), { c: iterations, dkLen: keylen });
  return B.from(key.buffer, key.byteOffset, key.byteLength);
}

function scryptSync(password: unknown, salt: unknown, keylen: number, options: { N?: number; r?: number; p?: number; cost?: number; blockSize?: number; parallelization?: number; maxmem?: number } = {}): Bytes {
  validateInteger(keylen, 'keylen', 0, 2 ** 31 - 1);
  const N = options.N ?? options.cost ?? 16384;
  const r = options.r ?? options.blockSize ?? 8;
  const p = options.p ?? options.parallelization ?? 1;
  const maxmem = options.maxmem ?? 32 * 1024 * 1024;
  if (128 * N * r > maxmem) throw nodeError(RangeError, 'ERR_CRYPTO_INVALID_SCRYPT_PARAMS', 'Invalid scrypt params: memory limit exceeded');
  const key = scrypt(toBytes(password, undefined, 'password'), toBytes(salt, undefined, 'salt'), { N, r, p, dkLen: keylen, maxmem: maxmem + 1024 });
  return B.from(key.buffer, key.byteOffset, key.byteLength);
}

function hkdfSync(digest: string, ikm: unknown, salt: unknown, info: unknown, keylen: number): ArrayBuffer {
  validateInteger(keylen, 'keylen', 0, 2 ** 31 - 1);
  const key = hkdf(hashFn(digest) as never, toBytes(ikm, undefined, 'ikm'), toBytes(salt, undefined, 'salt'), toBytes(info, undefined, 'info'), keylen);
  return key.slice().buffer;
}

function later<A extends unknown[], R>(fn: (...args: A) => R) {
  return (...args: [...A, (err: Error | null, result?: R) => void]) => {
    const callback = args.pop() as (err: Error | null, result?: R) => void;
    validateFunction(callback, 'callback');
    let result: R;
    try {
      result = fn(...(args as unknown as A));
    } catch (error) {
      if ((error as { code?: string }).code?.startsWith('ERR_INVALID_ARG')) throw error;
      setImmediate(() => callback(error as Error));
      return;
    }
    setImmediate(() => callback(null, result));
  };
}

const unsupported = (name: string) => unsupportedFunction(`crypto.${name}`);

const nodeCrypto: Record<string, unknown> = {
  createHash: (algorithm: string, options?: { outputLength?: number }) => new Hash(algorithm, options),
  createHmac: (algorithm: string, key: unknown) => new Hmac(algorithm, key),
  hash: (algorithm: string, data: unknown, outputEncoding = 'hex') => output(hashFn(algorithm)(toBytes(data, undefined)), outputEncoding),
  getHashes: () => Object.keys(HASHES).sort(),
  Hash,
  Hmac,
  randomBytes,
  pseudoRandomBytes: randomBytes,
  randomFillSync,
  randomFill,
  randomInt,
  randomUUID: () => crypto.randomUUID(),
  getRandomValues: (array: ArrayBufferView) => crypto.getRandomValues(array as Uint8Array),
  timingSafeEqual,
  pbkdf2Sync,
  pbkdf2: later(pbkdf2Sync),
  scryptSync,
  scrypt: later(scryptSync),
  hkdfSync,
  hkdf: later(hkdfSync),
  constants: Object.freeze({}),
  getCiphers: () => [],
  getCurves: () => [],
  getFips: () => 0,
  setFips: unsupported('setFips'),
  // ciphers, signatures and key objects: outside the sandbox's subset
  createCipheriv: unsupported('createCipheriv'),
  createDecipheriv: unsupported('createDecipheriv'),
  createSign: unsupported('createSign'),
  createVerify: unsupported('createVerify'),
  sign: unsupported('sign'),
  verify: unsupported('verify'),
  generateKeyPair: unsupported('generateKeyPair'),
  generateKeyPairSync: unsupported('generateKeyPairSync'),
  generateKey: unsupported('generateKey'),
  generateKeySync: unsupported('generateKeySync'),
  createPublicKey: unsupported('createPublicKey'),
  createPrivateKey: unsupported('createPrivateKey'),
  createSecretKey: unsupported('createSecretKey'),
  publicEncrypt: unsupported('publicEncrypt'),
  privateDecrypt: unsupported('privateDecrypt'),
  privateEncrypt: unsupported('privateEncrypt'),
  publicDecrypt: unsupported('publicDecrypt'),
  createDiffieHellman: unsupported('createDiffieHellman'),
  createECDH: unsupported('createECDH'),
  diffieHellman: unsupported('diffieHellman'),
  generatePrime: unsupported('generatePrime'),
  generatePrimeSync: unsupported('generatePrimeSync'),
  checkPrime: unsupported('checkPrime'),
  checkPrimeSync: unsupported('checkPrimeSync'),
};
for (const name of ['webcrypto', 'subtle'] as const) {
  Object.defineProperty(nodeCrypto, name, { enumerable: true, configurable: true, get: () => (name === 'webcrypto' ? crypto : crypto.subtle) });
}
Object.defineProperty(nodeCrypto, 'default', { value: nodeCrypto, enumerable: false });

export const modules = { crypto: nodeCrypto };
