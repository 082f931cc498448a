/**
 * `TextEncoder` / `TextDecoder`. A bare V8 isolate has neither. Lone surrogates encode as
 * U+FFFD, as the standard says. UTF-8, UTF-16 and windows-1252 decode here; the other
 * encodings Deno's TextDecoder knows (the legacy single- and multi-byte ones) come from the
 * text-legacy part, loaded when a script first names one.
 */
import { requirePart } from '../parts-loader.ts';
export class TextEncoder {
  get encoding(): string {
    return 'utf-8';
  }

  get [Symbol.toStringTag](): string {
    return 'TextEncoder';
  }

  encode(input = ''): Uint8Array {
    const s = String(input);
    const out: number[] = [];
    for (let i = 0; i < s.length; i++) {
      let code = s.charCodeAt(i);
      if (code >= 0xd800 && code <= 0xdbff && i + 1 < s.length) {
        const next = s.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) {
          code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
          i++;
        } else code = 0xfffd;
      } else if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
      if (code < 0x80) out.push(code);
      else if (code < 0x800) out.push(0xc0 | (code >> 6), 0x80 | (code & 63));
      else if (code < 0x10000) out.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
      else out.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 63), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
    }
    return new Uint8Array(out);
  }

  /** Writes whole characters only; `read` counts UTF-16 code units consumed. */
  encodeInto(input: string, dest: Uint8Array): { read: number; written: number } {
    const s = String(input);
    let read = 0;
    let written = 0;
    for (const ch of s) {
      const bytes = this.encode(ch);
      if (written + bytes.length > dest.length) break;
      dest.set(bytes, written);
      written += bytes.length;
      read += ch.length;
    }
    return { read, written };
  }
}

const UTF8_LABELS = new Set(['utf-8', 'utf8', 'unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'x-unicode20utf8']);
const UTF16LE_LABELS = new Set(['utf-16le', 'utf-16', 'csunicode', 'iso-10646-ucs-2', 'ucs-2', 'unicode', 'unicodefeff']);
const UTF16BE_LABELS = new Set(['utf-16be', 'unicodefffe']);
const WINDOWS_1252_LABELS = new Set([
  'windows-1252', 'ansi_x3.4-1968', 'ascii', 'cp1252', 'cp819', 'csisolatin1', 'ibm819', 'iso-8859-1', 'iso-ir-100',
  'iso8859-1', 'iso88591', 'iso_8859-1', 'iso_8859-1:1987', 'l1', 'latin1', 'us-ascii', 'x-cp1252',
]);
// windows-1252's bytes 0x80-0x9f (the rest are Latin-1)
const W1252_HIGH = [0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178];

type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

function encodingOf(label: unknown): Encoding | undefined {
  const l = String(label).trim().toLowerCase();
  if (UTF8_LABELS.has(l)) return 'utf-8';
  if (UTF16LE_LABELS.has(l)) return 'utf-16le';
  if (UTF16BE_LABELS.has(l)) return 'utf-16be';
  if (WINDOWS_1252_LABELS.has(l)) return 'windows-1252';
  return undefined;
}

function toBytes(input: unknown): Uint8Array {
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  if (typeof SharedArrayBuffer !== 'undefined' && input instanceof SharedArrayBuffer) return new Uint8Array(input);
  throw new TypeError("Failed to execute 'decode' on 'TextDecoder': parameter 1 is not of type 'ArrayBuffer or ArrayBufferView'.");
}

/** How many bytes at the end of `bytes` start a UTF-8 sequence that needs more input. */
function incompleteUtf8Tail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back]!;
    if ((b & 0xc0) === 0x80) continue;
    const need = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xc2 && b <= 0xdf ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

interface LegacyDecoder {
  readonly encoding: string;
  decode(bytes: Uint8Array, stream: boolean): string;
}

export class TextDecoder {
  readonly #encoding: Encoding;
  /** a legacy encoding's decoder (the text-legacy part), which keeps its own stream state */
  readonly #legacy: LegacyDecoder | null = null;
  readonly #fatal: boolean;
  readonly #ignoreBOM: boolean;
  #pending: Uint8Array = new Uint8Array(0);
  #bomChecked = false;

  constructor(label = 'utf-8', options: { fatal?: boolean; ignoreBOM?: boolean } = {}) {
    const encoding = encodingOf(label);
    this.#fatal = Boolean(options?.fatal);
    this.#ignoreBOM = Boolean(options?.ignoreBOM);
    if (!encoding) {
      this.#legacy = requirePart<{ legacyDecoder(label: string, fatal: boolean): LegacyDecoder | null }>('text-legacy').legacyDecoder(String(label), this.#fatal);
      if (!this.#legacy) throw new RangeError(`The encoding label provided ('${label}') is invalid.`);
    }
    this.#encoding = encoding ?? 'windows-1252';
  }

  get encoding(): string {
    return this.#legacy?.encoding ?? this.#encoding;
  }

  get fatal(): boolean {
    return this.#fatal;
  }

  get ignoreBOM(): boolean {
    return this.#ignoreBOM;
  }

  get [Symbol.toStringTag](): string {
    return 'TextDecoder';
  }

  /** `{ stream: true }` keeps an incomplete sequence at the end for the next call. */
  decode(input?: ArrayBuffer | ArrayBufferView, options: { stream?: boolean } = {}): string {
    const stream = Boolean(options?.stream);
    let bytes = input === undefined ? new Uint8Array(0) : toBytes(input);
    if (this.#legacy) return this.#legacy.decode(bytes, stream);
    if (this.#pending.length > 0) {
      const joined = new Uint8Array(this.#pending.length + bytes.length);
      joined.set(this.#pending);
      joined.set(bytes, this.#pending.length);
      bytes = joined;
    }
    let keep = 0;
    if (stream) {
      if (this.#encoding === 'utf-8') keep = incompleteUtf8Tail(bytes);
      else if (this.#encoding !== 'windows-1252') keep = bytes.length % 2 + (this.#endsInHighSurrogate(bytes) ? 2 : 0);
    }
    this.#pending = keep > 0 ? bytes.slice(bytes.length - keep) : new Uint8Array(0);
    const body = keep > 0 ? bytes.subarray(0, bytes.length - keep) : bytes;
    let start = 0;
    if (!this.#bomChecked && body.length > 0) {
      if (!this.#ignoreBOM) {
        if (this.#encoding === 'utf-8' && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) start = 3;
        else if (this.#encoding === 'utf-16le' && body[0] === 0xff && body[1] === 0xfe) start = 2;
        else if (this.#encoding === 'utf-16be' && body[0] === 0xfe && body[1] === 0xff) start = 2;
      }
      // a BOM split over calls is rare enough to take the first chunk's word for it
      if (!(this.#encoding === 'utf-8' && body.length < 3 && stream)) this.#bomChecked = true;
    }
    const text = this.#decodeBytes(body.subarray(start));
    if (!stream) this.#bomChecked = false;
    return text;
  }

  #endsInHighSurrogate(bytes: Uint8Array): boolean {
    const even = bytes.length - (bytes.length % 2);
    if (even < 2) return false;
    const unit = this.#encoding === 'utf-16le' ? bytes[even - 2]! | (bytes[even - 1]! << 8) : (bytes[even - 2]! << 8) | bytes[even - 1]!;
    return unit >= 0xd800 && unit <= 0xdbff;
  }

  #decodeBytes(bytes: Uint8Array): string {
    if (this.#encoding === 'windows-1252') {
      let out = '';
      for (let i = 0; i < bytes.length; i += 8192) {
        out += String.fromCharCode(...Array.from(bytes.subarray(i, i + 8192), (b) => (b >= 0x80 && b <= 0x9f ? W1252_HIGH[b - 0x80]! : b)));
      }
      return out;
    }
    if (this.#encoding !== 'utf-8') return this.#decodeUtf16(bytes);
    return this.#decodeUtf8(bytes);
  }

  #decodeUtf16(bytes: Uint8Array): string {
    const units: number[] = [];
    const le = this.#encoding === 'utf-16le';
    const bad = (): void => {
      if (this.#fatal) throw new TypeError('The encoded data is not valid');
      units.push(0xfffd);
    };
    let i = 0;
    for (; i + 1 < bytes.length; i += 2) {
      const unit = le ? bytes[i]! | (bytes[i + 1]! << 8) : (bytes[i]! << 8) | bytes[i + 1]!;
      if (unit >= 0xd800 && unit <= 0xdbff) {
        const next = i + 3 < bytes.length ? (le ? bytes[i + 2]! | (bytes[i + 3]! << 8) : (bytes[i + 2]! << 8) | bytes[i + 3]!) : -1;
        if (next >= 0xdc00 && next <= 0xdfff) {
          units.push(unit, next);
          i += 2;
        } else bad();
      } else if (unit >= 0xdc00 && unit <= 0xdfff) bad();
      else units.push(unit);
    }
    if (i < bytes.length) bad();
    let out = '';
    for (let j = 0; j < units.length; j += 8192) out += String.fromCharCode(...units.slice(j, j + 8192));
    return out;
  }

  #decodeUtf8(bytes: Uint8Array): string {
    let i = 0;
    const parts: string[] = [];
    let chunk: number[] = [];
    const bad = (): void => {
      if (this.#fatal) throw new TypeError('The encoded data is not valid');
      chunk.push(0xfffd);
    };
    while (i < bytes.length) {
      const b = bytes[i]!;
      let need = 0;
      let code = 0;
      let min = 0;
      if (b < 0x80) {
        chunk.push(b);
        i++;
        continue;
      } else if (b >= 0xc2 && b <= 0xdf) [need, code, min] = [1, b & 31, 0x80];
      else if (b >= 0xe0 && b <= 0xef) [need, code, min] = [2, b & 15, 0x800];
      else if (b >= 0xf0 && b <= 0xf4) [need, code, min] = [3, b & 7, 0x10000];
      else {
        bad();
        i++;
        continue;
      }
      let j = 1;
      for (; j <= need; j++) {
        const c = bytes[i + j];
        if (c === undefined || (c & 0xc0) !== 0x80) break;
        code = (code << 6) | (c & 63);
      }
      if (j <= need || code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
        bad();
        i += Math.max(1, j === 1 ? 1 : j);
        continue;
      }
      i += need + 1;
      chunk.push(code);
      if (chunk.length > 8192) {
        parts.push(String.fromCodePoint(...chunk));
        chunk = [];
      }
    }
    parts.push(String.fromCodePoint(...chunk));
    return parts.join('');
  }
}
