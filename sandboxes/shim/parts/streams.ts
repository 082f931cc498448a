/**
 * WHATWG streams from web-streams-polyfill (a spec-compliant implementation, tested
 * against the web-platform tests), plus `TextEncoderStream` and `TextDecoderStream` on top
 * of the shim's encoder and decoder, with the console view Deno gives each class.
 */
import {
  ByteLengthQueuingStrategy,
  CountQueuingStrategy,
  ReadableByteStreamController,
  ReadableStream,
  ReadableStreamBYOBReader,
  ReadableStreamBYOBRequest,
  ReadableStreamDefaultController,
  ReadableStreamDefaultReader,
  TransformStream,
  TransformStreamDefaultController,
  WritableStream,
  WritableStreamDefaultController,
  WritableStreamDefaultWriter,
} from 'web-streams-polyfill';
import { defineGlobal } from '../parts-loader.ts';
import { PRIVATE_INSPECT, inspectAs } from '../web/inspect.ts';
import { TextDecoder, TextEncoder } from '../web/text-encoding.ts';

export {
  ByteLengthQueuingStrategy, CountQueuingStrategy, ReadableByteStreamController, ReadableStream, ReadableStreamBYOBReader,
  ReadableStreamBYOBRequest, ReadableStreamDefaultController, ReadableStreamDefaultReader, TransformStream,
  TransformStreamDefaultController, WritableStream, WritableStreamDefaultController, WritableStreamDefaultWriter,
};

/** The readable state a stream is in, from what its public API says. */
function readableState(stream: ReadableStream): string {
  const internal = (stream as unknown as { _state?: string })._state;
  return internal ?? 'readable';
}

function supportsByob(stream: ReadableStream): boolean {
  const controller = (stream as unknown as { _readableStreamController?: unknown })._readableStreamController;
  return controller instanceof ReadableByteStreamController;
}

Object.defineProperty(ReadableStream.prototype, PRIVATE_INSPECT, {
  value(this: ReadableStream) {
    if (this === ReadableStream.prototype) return 'ReadableStream';
    return inspectAs('ReadableStream', { locked: this.locked, state: readableState(this), supportsBYOB: supportsByob(this) });
  },
});
Object.defineProperty(WritableStream.prototype, PRIVATE_INSPECT, {
  value(this: WritableStream) {
    if (this === WritableStream.prototype) return 'WritableStream';
    return inspectAs('WritableStream', { locked: this.locked });
  },
});
Object.defineProperty(TransformStream.prototype, PRIVATE_INSPECT, {
  value(this: TransformStream) {
    if (this === TransformStream.prototype) return 'TransformStream';
    return inspectAs('TransformStream', { readable: this.readable, writable: this.writable });
  },
});
Object.defineProperty(ReadableStreamDefaultReader.prototype, PRIVATE_INSPECT, {
  value(this: ReadableStreamDefaultReader) {
    if (this === ReadableStreamDefaultReader.prototype) return 'ReadableStreamDefaultReader';
    return inspectAs('ReadableStreamDefaultReader', { closed: this.closed });
  },
});

export class TextEncoderStream {
  readonly #transform: TransformStream<string, Uint8Array>;

  constructor() {
    const encoder = new TextEncoder();
    // A lone high surrogate at a chunk's end waits for the next chunk, as the standard says.
    let pendingHigh = '';
    this.#transform = new TransformStream<string, Uint8Array>({
      transform(chunk, controller) {
        let text = pendingHigh + String(chunk);
        pendingHigh = '';
        const last = text.charCodeAt(text.length - 1);
        if (last >= 0xd800 && last <= 0xdbff) {
          pendingHigh = text.slice(-1);
          text = text.slice(0, -1);
        }
        if (text.length > 0) controller.enqueue(encoder.encode(text));
      },
      flush(controller) {
        if (pendingHigh) controller.enqueue(new Uint8Array([0xef, 0xbf, 0xbd]));
      },
    });
  }

  get encoding(): string {
    return 'utf-8';
  }

  get readable(): ReadableStream<Uint8Array> {
    return this.#transform.readable;
  }

  get writable(): WritableStream<string> {
    return this.#transform.writable;
  }

  get [Symbol.toStringTag](): string {
    return 'TextEncoderStream';
  }

  [PRIVATE_INSPECT](): unknown {
    return inspectAs('TextEncoderStream', { encoding: this.encoding, readable: this.readable, writable: this.writable });
  }
}

export class TextDecoderStream {
  readonly #decoder: TextDecoder;
  readonly #transform: TransformStream<BufferSource, string>;

  constructor(label = 'utf-8', options: { fatal?: boolean; ignoreBOM?: boolean } = {}) {
    const decoder = new TextDecoder(label, options);
    this.#decoder = decoder;
    this.#transform = new TransformStream<BufferSource, string>({
      transform(chunk, controller) {
        const text = decoder.decode(chunk as ArrayBufferView, { stream: true });
        if (text) controller.enqueue(text);
      },
      flush(controller) {
        const text = decoder.decode();
        if (text) controller.enqueue(text);
      },
    });
  }

  get encoding(): string {
    return this.#decoder.encoding;
  }

  get fatal(): boolean {
    return this.#decoder.fatal;
  }

  get ignoreBOM(): boolean {
    return this.#decoder.ignoreBOM;
  }

  get readable(): ReadableStream<string> {
    return this.#transform.readable;
  }

  get writable(): WritableStream<BufferSource> {
    return this.#transform.writable;
  }

  get [Symbol.toStringTag](): string {
    return 'TextDecoderStream';
  }

  [PRIVATE_INSPECT](): unknown {
    return inspectAs('TextDecoderStream', { encoding: this.encoding, fatal: this.fatal, ignoreBOM: this.ignoreBOM, readable: this.readable, writable: this.writable });
  }
}

type BufferSource = ArrayBuffer | ArrayBufferView;

/** Bytes of a stream of Uint8Array chunks, for Response bodies and the like. */
export async function readAllBytes(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    if (!(value instanceof Uint8Array)) throw new TypeError('Received non-Uint8Array chunk');
    chunks.push(value);
    size += value.byteLength;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

for (const [name, value] of Object.entries({
  ReadableStream, ReadableStreamDefaultReader, ReadableStreamBYOBReader, ReadableStreamBYOBRequest, ReadableByteStreamController,
  ReadableStreamDefaultController, WritableStream, WritableStreamDefaultWriter, WritableStreamDefaultController, TransformStream,
  TransformStreamDefaultController, ByteLengthQueuingStrategy, CountQueuingStrategy, TextEncoderStream, TextDecoderStream,
})) {
  defineGlobal(name, value);
}
