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

export const modules = { buffer };
