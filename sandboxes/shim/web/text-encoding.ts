/**
 * `TextEncoder` / `TextDecoder` for UTF-8, the only encoding the sandbox promises.
 * A bare V8 isolate has neither. Lone surrogates encode as U+FFFD, as the standard says.
 */
export class TextEncoder {
  get encoding(): string {
    return 'utf-8';
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

const LABELS = new Set(['utf-8', 'utf8', 'unicode-1-1-utf-8']);

export class TextDecoder {
  readonly encoding = 'utf-8';
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;

  constructor(label = 'utf-8', options: { fatal?: boolean; ignoreBOM?: boolean } = {}) {
    if (!LABELS.has(String(label).trim().toLowerCase())) {
      throw new RangeError(`The encoding label provided ('${label}') is invalid.`);
    }
    this.fatal = Boolean(options.fatal);
    this.ignoreBOM = Boolean(options.ignoreBOM);
  }

  decode(input?: ArrayBuffer | ArrayBufferView): string {
    if (input === undefined) return '';
    const bytes = input instanceof ArrayBuffer ? new Uint8Array(input) : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    let i = !this.ignoreBOM && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    const parts: string[] = [];
    let chunk: number[] = [];
    const bad = (): void => {
      if (this.fatal) throw new TypeError('The encoded data is not valid.');
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
