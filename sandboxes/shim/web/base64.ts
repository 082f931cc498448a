/** Bytes cross the boundary as base64 inside JSON; `atob`/`btoa` are the web's names for it. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const LOOKUP = new Uint8Array(128);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;

export function bytesToBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i]!;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    out += ALPHABET[a >> 2]! + ALPHABET[((a & 3) << 4) | ((b ?? 0) >> 4)]!;
    out += b === undefined ? '=' : ALPHABET[((b & 15) << 2) | ((c ?? 0) >> 6)]!;
    out += c === undefined ? '=' : ALPHABET[c & 63]!;
  }
  return out;
}

export function base64ToBytes(text: string): Uint8Array {
  const clean = text.replace(/[\s=]/g, '');
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let o = 0;
  for (let i = 0; i < clean.length; i += 4) {
    const n = (LOOKUP[clean.charCodeAt(i)]! << 18) | (LOOKUP[clean.charCodeAt(i + 1)]! << 12) | (LOOKUP[clean.charCodeAt(i + 2)]! << 6) | LOOKUP[clean.charCodeAt(i + 3)]!;
    out[o++] = (n >> 16) & 255;
    if (i + 2 < clean.length) out[o++] = (n >> 8) & 255;
    if (i + 3 < clean.length) out[o++] = n & 255;
  }
  return out.subarray(0, o);
}

function domException(message: string, name: string): Error {
  const DOMExceptionClass = (globalThis as unknown as { DOMException: new (m: string, n: string) => Error }).DOMException;
  return new DOMExceptionClass(message, name);
}

function missingArgument(name: string): TypeError {
  const error = new TypeError(`Failed to execute '${name}': 1 argument required, but only 0 present`);
  Object.defineProperty(error, 'code', { value: 'ERR_MISSING_ARGS', writable: true, configurable: true, enumerable: true });
  return error;
}

export function btoa(data: string): string {
  if (arguments.length === 0) throw missingArgument('btoa');
  const s = String(data);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code > 255) throw domException('Cannot encode string: string contains characters outside of the Latin1 range', 'InvalidCharacterError');
    bytes[i] = code;
  }
  return bytesToBase64(bytes);
}

/** The HTML standard's forgiving-base64 decode, with Deno's error. */
export function atob(data: string): string {
  if (arguments.length === 0) throw missingArgument('atob');
  let s = String(data).replace(/[\t\n\f\r ]/g, '');
  if (s.length % 4 === 0) s = s.replace(/={1,2}$/, '');
  if (s.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(s)) throw domException('Failed to decode base64', 'InvalidCharacterError');
  const bytes = base64ToBytes(s);
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return out;
}
