/**
 * `crypto.getRandomValues` and `crypto.randomUUID`. Randomness comes from the host through
 * the broker (so a later replay can answer it from the record); the isolate has no other
 * source it may use for these.
 */
import { callSync } from '../host.ts';
import { base64ToBytes } from './base64.ts';
import { defineLazy, requirePart } from '../parts-loader.ts';

const INTEGER_ARRAYS = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array'];

const typedArrayToStringTag = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype) as object, Symbol.toStringTag)!.get!;

function typedArrayTag(value: ArrayBufferView): string | undefined {
  return typedArrayToStringTag.call(value) as string | undefined;
}

function randomBytes(length: number): Uint8Array {
  return base64ToBytes(callSync<string>('random.bytes', { length }));
}

export function getRandomValues<T extends ArrayBufferView | null>(array: T): T {
  const DOMExceptionClass = (globalThis as unknown as { DOMException: new (message: string, name: string) => Error }).DOMException;
  if (!ArrayBuffer.isView(array)) {
    throw new TypeError("Failed to execute 'getRandomValues' on 'Crypto': parameter 1 is not of type 'ArrayBufferView'");
  }
  // the engine's own tag, so a subclass (Node's Buffer) counts as the array it is
  if (!INTEGER_ARRAYS.includes(typedArrayTag(array) ?? '')) {
    throw new DOMExceptionClass('The provided ArrayBufferView is not an integer array type', 'TypeMismatchError');
  }
  if (array.byteLength > 65536) {
    throw new DOMExceptionClass(`The ArrayBufferView's byte length (${array.byteLength}) exceeds the number of bytes of entropy available via this API (65536)`, 'QuotaExceededError');
  }
  new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(randomBytes(array.byteLength));
  return array;
}

export function randomUUID(): string {
  const b = randomBytes(16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const crypto: Record<string, unknown> = { getRandomValues, randomUUID };

// crypto.subtle (and the Crypto, SubtleCrypto, CryptoKey classes) load on first use.
defineLazy(crypto, ['subtle'], () => void requirePart('subtle'));
