/**
 * `CompressionStream` and `DecompressionStream` (gzip, deflate, deflate-raw) on pako, a
 * pure-JS port of zlib, as transform streams with Deno's argument errors.
 */
import pako from 'pako';
import { unsupportedError } from '../unsupported.ts';
import { defineGlobal } from '../parts-loader.ts';
import { PRIVATE_INSPECT, inspectAs } from '../web/inspect.ts';
import { TransformStream, type ReadableStream, type WritableStream } from './streams.ts';

const FORMATS = ['deflate', 'deflate-raw', 'gzip'] as const;
type Format = (typeof FORMATS)[number];

function checkFormat(format: unknown, what: string): Format {
  if (format === undefined) throw new TypeError(`Failed to construct '${what}': 1 argument required, but only 0 present`);
  const f = String(format);
  // Deno has brotli too; no pure-JS implementation here compresses it
  if (f === 'brotli') throw unsupportedError(`${what}('brotli')`, 'gzip, deflate and deflate-raw are supported');
  if (!(FORMATS as readonly string[]).includes(f)) {
    throw new TypeError(`Failed to construct '${what}': The provided value '${f}' is not a valid enum value of type CompressionFormat`);
  }
  return f as Format;
}

function toChunk(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new TypeError('The provided value is not of type \'(ArrayBuffer or ArrayBufferView)\'');
}

function options(format: Format): pako.DeflateOptions & pako.InflateOptions {
  return format === 'gzip' ? { gzip: true } : format === 'deflate-raw' ? { raw: true } : {};
}

class ZlibStream {
  readonly #transform: TransformStream<unknown, Uint8Array>;

  constructor(engine: pako.Deflate | pako.Inflate, inflating: boolean) {
    let out: Uint8Array[] = [];
    engine.onData = (chunk: Uint8Array | string | ArrayBuffer) => {
      out.push(chunk instanceof Uint8Array ? chunk : new Uint8Array(chunk as ArrayBuffer));
    };
    const drain = (controller: TransformStreamDefaultController<Uint8Array>): void => {
      if (engine.err) throw new TypeError(inflating ? 'corrupt deflate stream' : `compression failed: ${engine.msg}`);
      for (const c of out) controller.enqueue(c);
      out = [];
    };
    this.#transform = new TransformStream<unknown, Uint8Array>({
      transform(chunk, controller) {
        engine.push(toChunk(chunk), false);
        drain(controller);
      },
      flush(controller) {
        engine.push(new Uint8Array(0), true);
        drain(controller);
        if (inflating && !(engine as unknown as { ended: boolean }).ended) throw new TypeError('unexpected end of file');
      },
    });
  }

  get readable(): ReadableStream<Uint8Array> {
    return this.#transform.readable;
  }

  get writable(): WritableStream<unknown> {
    return this.#transform.writable;
  }
}

type TransformStreamDefaultController<T> = { enqueue(chunk: T): void };

export class CompressionStream extends ZlibStream {
  constructor(format: Format) {
    super(new pako.Deflate(options(checkFormat(format, 'CompressionStream'))), false);
  }
  get [Symbol.toStringTag](): string {
    return 'CompressionStream';
  }
  [PRIVATE_INSPECT](): unknown {
    return inspectAs('CompressionStream', { readable: this.readable, writable: this.writable });
  }
}

export class DecompressionStream extends ZlibStream {
  constructor(format: Format) {
    super(new pako.Inflate(options(checkFormat(format, 'DecompressionStream'))), true);
  }
  get [Symbol.toStringTag](): string {
    return 'DecompressionStream';
  }
  [PRIVATE_INSPECT](): unknown {
    return inspectAs('DecompressionStream', { readable: this.readable, writable: this.writable });
  }
}

defineGlobal('CompressionStream', CompressionStream);
defineGlobal('DecompressionStream', DecompressionStream);
