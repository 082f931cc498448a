/**
 * `node:buffer` (and the global `Buffer`, as Deno has it): the `buffer` package, a faithful
 * port of Node's Buffer over Uint8Array, plus the module members Node has beyond it. Pure
 * code: a Buffer never reaches the host. `Buffer.allocUnsafe` returns zeroed memory here (the
 * package allocates a fresh Uint8Array): there is no pool to disclose.
 */
// the file, not the bare name: `buffer` alone is the shim's own module (node/modules.ts aliases)
import * as bufferPackage from 'buffer/index.js';

const pkg = bufferPackage as unknown as {
  Buffer: typeof Uint8Array & Record<string, unknown>;
  SlowBuffer: unknown;
  INSPECT_MAX_BYTES: number;
  kMaxLength: number;
};

export const Buffer = pkg.Buffer;
// the bundler may rename the package's function; its name is Node's
Object.defineProperty(Buffer, 'name', { value: 'Buffer' });


/** Node's `<Buffer 61 62 ... 10 more bytes>`, the form Deno's console prints. */
function nodeInspect(B: BufferStatics): void {
  Object.defineProperty(B.prototype, Symbol.for('nodejs.util.inspect.custom'), {
    configurable: true,
    writable: true,
    value(this: BufferInstance) {
      const max = pkg.INSPECT_MAX_BYTES;
      let str = this.toString('hex', 0, max).replace(/(.{2})/g, '$1 ').trim();
      const remaining = this.length - max;
      if (remaining > 0) str += ` ... ${remaining} more byte${remaining > 1 ? 's' : ''}`;
      return `<${this.constructor.name} ${str}>`;
    },
  });
}

const BYTE_SIZES: Record<string, number> = { Int8: 1, UInt8: 1, Uint8: 1, Int16: 2, UInt16: 2, Uint16: 2, Int32: 4, UInt32: 4, Uint32: 4, Float: 4, Double: 8, BigInt64: 8, BigUInt64: 8, BigUint64: 8 };

/** Node's errors for a read or write past the end: ERR_BUFFER_OUT_OF_BOUNDS or ERR_OUT_OF_RANGE with its range. */
function nodeBoundsErrors(B: BufferStatics): void {
  const proto = B.prototype as unknown as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const m = /^(read|write)(Int8|UInt8|Uint8|Int16|UInt16|Uint16|Int32|UInt32|Uint32|Float|Double|BigInt64|BigUInt64|BigUint64)(LE|BE)?$/.exec(name);
    if (!m) continue;
    const size = BYTE_SIZES[m[2]!]!;
    const original = proto[name] as (...args: unknown[]) => unknown;
    const offsetIndex = m[1] === 'read' ? 0 : 1;
    proto[name] = function (this: BufferInstance, ...args: unknown[]) {
      const offset = args[offsetIndex] ?? 0;
      if (typeof offset === 'number' && Number.isInteger(offset)) {
        const last = this.length - size;
        if (last < 0) throw codedRangeError('ERR_BUFFER_OUT_OF_BOUNDS', 'Attempt to access memory outside buffer bounds');
        if (offset < 0 || offset > last) throw codedRangeError('ERR_OUT_OF_RANGE', `The value of "offset" is out of range. It must be >= 0 and <= ${last}. Received ${offset}`);
      }
      return original.apply(this, args);
    };
  }
}

function codedRangeError(code: string, message: string): RangeError {
  const error = new RangeError(message);
  Object.defineProperty(error, 'code', { value: code, writable: true, configurable: true, enumerable: true });
  return error;
}

interface BufferInstance {
  length: number;
  constructor: { name: string };
  toString(encoding?: string, start?: number, end?: number): string;
  write(string: string, offset?: number | string, length?: number | string, encoding?: string): number;
  fill(value: unknown, offset?: number | string, end?: number | string, encoding?: string): BufferInstance;
}

interface BufferStatics {
  from(value: unknown, encodingOrOffset?: unknown, length?: number): BufferInstance;
  alloc(size: number, fill?: unknown, encoding?: string): BufferInstance;
  byteLength(value: unknown, encoding?: string): number;
  isEncoding(encoding: unknown): boolean;
  prototype: BufferInstance;
}

/** Node's `base64url` encoding, which the buffer package predates: base64 with `-_` and no padding. */
function addBase64Url(B: BufferStatics): void {
  const isUrl = (encoding: unknown) => typeof encoding === 'string' && encoding.toLowerCase() === 'base64url';
  const toBase64 = (s: string) => s.replace(/-/g, '+').replace(/_/g, '/');
  const toUrl = (s: string) => s.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const { from, alloc, byteLength, isEncoding } = B;
  const { toString, write, fill } = B.prototype;
  B.from = function (value: unknown, encodingOrOffset?: unknown, length?: number) {
    if (typeof value === 'string' && isUrl(encodingOrOffset)) return from.call(this, toBase64(value), 'base64');
    return from.call(this, value, encodingOrOffset, length);
  };
  B.alloc = function (size: number, fillValue?: unknown, encoding?: string) {
    if (typeof fillValue === 'string' && isUrl(encoding)) return alloc.call(this, size, toBase64(fillValue), 'base64');
    return alloc.call(this, size, fillValue, encoding);
  };
  B.byteLength = function (value: unknown, encoding?: string) {
    return byteLength.call(this, typeof value === 'string' && isUrl(encoding) ? toBase64(value) : value, isUrl(encoding) ? 'base64' : encoding);
  };
  B.isEncoding = (encoding: unknown) => isUrl(encoding) || isEncoding(encoding);
  B.prototype.toString = function (this: BufferInstance, encoding?: string, start?: number, end?: number) {
    if (isUrl(encoding)) return toUrl(toString.call(this, 'base64', start, end));
    return toString.call(this, encoding, start, end);
  };
  B.prototype.write = function (this: BufferInstance, string: string, offset?: number | string, length?: number | string, encoding?: string) {
    if ([offset, length, encoding].some(isUrl)) {
      const args = [offset, length, encoding].map((a) => (isUrl(a) ? 'base64' : a)) as [number, number, string];
      return write.call(this, toBase64(string), ...args);
    }
    return write.call(this, string, offset, length, encoding);
  };
  B.prototype.fill = function (this: BufferInstance, value: unknown, offset?: number | string, end?: number | string, encoding?: string) {
    if (typeof value === 'string' && [offset, end, encoding].some(isUrl)) {
      const args = [offset, end, encoding].map((a) => (isUrl(a) ? 'base64' : a)) as [number, number, string];
      return fill.call(this, toBase64(value), ...args);
    }
    return fill.call(this, value, offset, end, encoding);
  };
}

const kMaxLength = pkg.kMaxLength;
const kStringMaxLength = 536_870_888;

function isUtf8(input: ArrayBufferView | ArrayBuffer): boolean {
  const bytes = input instanceof ArrayBuffer ? new Uint8Array(input) : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function isAscii(input: ArrayBufferView | ArrayBuffer): boolean {
  const bytes = input instanceof ArrayBuffer ? new Uint8Array(input) : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  for (const b of bytes) if (b > 0x7f) return false;
  return true;
}

const buffer: Record<string, unknown> = {
  Buffer,
  SlowBuffer: pkg.SlowBuffer,
  kMaxLength,
  kStringMaxLength,
  constants: Object.freeze({ MAX_LENGTH: kMaxLength, MAX_STRING_LENGTH: kStringMaxLength }),
  atob: (data: string) => globalThis.atob(data),
  btoa: (data: string) => globalThis.btoa(data),
  isUtf8,
  isAscii,
};
Object.defineProperty(buffer, 'INSPECT_MAX_BYTES', {
  enumerable: true,
  get: () => pkg.INSPECT_MAX_BYTES,
  set: (n: number) => {
    pkg.INSPECT_MAX_BYTES = n;
  },
});
// Blob and File are the web platform's (the fetch part), loaded only when a script asks.
for (const name of ['Blob', 'File'] as const) {
  Object.defineProperty(buffer, name, { enumerable: true, configurable: true, get: () => (globalThis as Record<string, unknown>)[name] });
}
buffer.default = buffer;

// Node's behaviour where the buffer package predates it or differs (after every helper above is defined)
addBase64Url(Buffer as unknown as BufferStatics);
nodeBoundsErrors(Buffer as unknown as BufferStatics);
nodeInspect(Buffer as unknown as BufferStatics);

export const modules = { buffer };
