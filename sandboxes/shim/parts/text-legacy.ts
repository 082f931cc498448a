/**
 * The legacy encodings of the WHATWG Encoding Standard, which Deno's `TextDecoder` decodes
 * (encoding_rs) and the shim's core does not (it knows UTF-8, UTF-16 and windows-1252):
 * single-byte (IBM866, ISO-8859-2..16, KOI8-R/U, macintosh, windows-874 and 1250..1258,
 * x-mac-cyrillic, x-user-defined) and multi-byte (GBK, gb18030, Big5, EUC-JP, ISO-2022-JP,
 * Shift_JIS, EUC-KR). Labels, index tables and decoders are @exodus/bytes', which follows
 * the current standard; this part is loaded only when a script first names such a label,
 * so no other isolate pays for its tables.
 */
import { normalizeEncoding } from '@exodus/bytes/encoding-lite.js';
import { createMultibyteDecoder } from '@exodus/bytes/multi-byte.js';
import { createSinglebyteDecoder } from '@exodus/bytes/single-byte.js';

const MULTI_BYTE = new Set(['gbk', 'gb18030', 'big5', 'euc-jp', 'iso-2022-jp', 'shift_jis', 'euc-kr']);

export interface LegacyDecoder {
  /** the encoding's name, as `TextDecoder.prototype.encoding` reports it */
  readonly encoding: string;
  /** decodes `bytes`; `stream` keeps an incomplete sequence (and ISO-2022-JP's mode) for the next call */
  decode(bytes: Uint8Array, stream: boolean): string;
}

/** What a fatal decoder throws for bytes the encoding does not map, in Deno's words. */
function invalidData(): TypeError {
  return new TypeError('The encoded data is not valid');
}

/**
 * A decoder for `label`, or null when it names none of these encodings (the caller's
 * RangeError: an unknown label, or `replacement`, which TextDecoder does not offer).
 */
export function legacyDecoder(label: string, fatal: boolean): LegacyDecoder | null {
  const encoding = normalizeEncoding(label);
  if (encoding === null || encoding === 'replacement' || encoding.startsWith('utf-') || encoding === 'windows-1252') return null;
  if (MULTI_BYTE.has(encoding)) {
    let decode = createMultibyteDecoder(encoding, !fatal);
    return {
      encoding,
      decode(bytes, stream) {
        try {
          return decode(bytes, stream);
        } catch (error) {
          // a fatal error ends the stream: the next call starts afresh, as Deno's decoder does
          decode = createMultibyteDecoder(encoding, !fatal);
          if (error instanceof TypeError) throw invalidData();
          throw error;
        }
      },
    };
  }
  const decode = createSinglebyteDecoder(encoding, !fatal);
  return {
    encoding,
    decode(bytes) {
      try {
        return decode(bytes);
      } catch (error) {
        if (error instanceof TypeError) throw invalidData();
        throw error;
      }
    },
  };
}
