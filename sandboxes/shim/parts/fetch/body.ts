/**
 * The Fetch standard's body: what a `BodyInit` becomes (bytes, or a stream, and the
 * content type it implies) and the mixin `Request` and `Response` share (`body`,
 * `bodyUsed`, `arrayBuffer`, `bytes`, `text`, `json`, `blob`, `formData`). A body known as
 * bytes stays bytes until someone asks for its stream, so the common case never builds one.
 */
import { TextDecoder, TextEncoder } from '../../web/text-encoding.ts';
import { ReadableStream, readAllBytes } from '../streams.ts';
import { Blob, blobBytes } from './blob.ts';
import { FormData, decodeMultipart, decodeUrlEncoded, encodeMultipart } from './form-data.ts';

export type BodyInit = string | ArrayBuffer | ArrayBufferView | Blob | FormData | URLSearchParams | ReadableStream<Uint8Array> | null | undefined;

export interface BodySource {
  bytes: Uint8Array | null;
  stream: ReadableStream<Uint8Array> | null;
}

interface URLSearchParams {
  toString(): string;
}

function isSearchParams(value: unknown): boolean {
  const Params = (globalThis as unknown as { URLSearchParams: new () => object }).URLSearchParams;
  return value instanceof Params;
}

/** The standard's "extract a body": its source and the Content-Type it implies, if any. */
export function extractBody(init: BodyInit): { source: BodySource; contentType: string | null } | null {
  if (init === null || init === undefined) return null;
  if (typeof init === 'string') return { source: { bytes: new TextEncoder().encode(init), stream: null }, contentType: 'text/plain;charset=UTF-8' };
  if (init instanceof ArrayBuffer) return { source: { bytes: new Uint8Array(init.slice(0)), stream: null }, contentType: null };
  if (ArrayBuffer.isView(init)) return { source: { bytes: new Uint8Array(init.buffer.slice(init.byteOffset, init.byteOffset + init.byteLength)), stream: null }, contentType: null };
  if (init instanceof Blob) return { source: { bytes: blobBytes(init), stream: null }, contentType: init.type || null };
  if (init instanceof FormData) {
    const { bytes, boundary } = encodeMultipart(init, () => Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2));
    return { source: { bytes, stream: null }, contentType: `multipart/form-data; boundary=${boundary}` };
  }
  if (isSearchParams(init)) return { source: { bytes: new TextEncoder().encode(String(init)), stream: null }, contentType: 'application/x-www-form-urlencoded;charset=UTF-8' };
  if (init instanceof ReadableStream) {
    if (init.locked) throw new TypeError('ReadableStream is locked or disturbed');
    return { source: { bytes: null, stream: init }, contentType: null };
  }
  return { source: { bytes: new TextEncoder().encode(String(init)), stream: null }, contentType: 'text/plain;charset=UTF-8' };
}

function streamOfBytes(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!done && bytes.byteLength > 0) controller.enqueue(bytes.slice());
      done = true;
      controller.close();
    },
  });
}

/** The body mixin's state; `contentType` reads the owner's headers when a body is parsed. */
export class Body {
  #source: BodySource | null;
  #used = false;
  readonly #contentType: () => string | null;

  constructor(source: BodySource | null, contentType: () => string | null) {
    this.#source = source;
    this.#contentType = contentType;
  }

  get stream(): ReadableStream<Uint8Array> | null {
    const source = this.#source;
    if (!source) return null;
    source.stream ??= streamOfBytes(source.bytes ?? new Uint8Array(0));
    return source.stream;
  }

  get used(): boolean {
    if (this.#used) return true;
    const stream = this.#source?.stream;
    return Boolean(stream && (stream as unknown as { _disturbed?: boolean })._disturbed);
  }

  /** The body's source, for sending it elsewhere (it counts as consumed, as in Deno). */
  take(): BodySource | null {
    if (this.used) throw new TypeError('Body already consumed');
    this.#used = true;
    return this.#source;
  }

  /** Takes over another body's content (Request.clone builds the copy, then gives it this). */
  replaceWith(other: Body): void {
    this.#source = other.#source;
    this.#used = false;
  }

  /** A second body with the same content: bytes are shared, a stream is teed. */
  clone(): Body {
    if (this.used) throw new TypeError('Body is unusable');
    const source = this.#source;
    if (!source) return new Body(null, this.#contentType);
    if (source.stream) {
      const [a, b] = source.stream.tee();
      source.stream = a;
      return new Body({ bytes: null, stream: b }, this.#contentType);
    }
    return new Body({ bytes: source.bytes, stream: null }, this.#contentType);
  }

  async consume(): Promise<Uint8Array> {
    if (this.used) throw new TypeError('Body already consumed');
    const source = this.#source;
    this.#used = true;
    if (!source) return new Uint8Array(0);
    if (source.stream) {
      if (source.stream.locked) throw new TypeError('Body already consumed');
      return readAllBytes(source.stream);
    }
    return source.bytes ?? new Uint8Array(0);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.consume();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return (await this.consume()).slice();
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.consume());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async blob(): Promise<Blob> {
    const bytes = await this.consume();
    return new Blob([bytes], { type: this.#contentType() ?? '' });
  }

  async formData(): Promise<FormData> {
    const type = this.#contentType() ?? '';
    const bytes = await this.consume();
    if (/^multipart\/form-data/i.test(type)) return decodeMultipart(bytes, type);
    if (/^application\/x-www-form-urlencoded/i.test(type)) return decodeUrlEncoded(new TextDecoder().decode(bytes));
    throw new TypeError('Body can not be decoded as form data');
  }
}

/** Defines the mixin's members on a class whose instances keep a Body under `bodyOf`. */
export function mixBody(proto: object, bodyOf: (self: object) => Body): void {
  const methods = ['arrayBuffer', 'blob', 'bytes', 'formData', 'json', 'text'] as const;
  Object.defineProperty(proto, 'body', { configurable: true, enumerable: true, get(this: object) { return bodyOf(this).stream; } });
  Object.defineProperty(proto, 'bodyUsed', { configurable: true, enumerable: true, get(this: object) { return bodyOf(this).used; } });
  for (const name of methods) {
    Object.defineProperty(proto, name, {
      configurable: true,
      writable: true,
      enumerable: true,
      value: { [name](this: object) { return (bodyOf(this)[name] as () => Promise<unknown>).call(bodyOf(this)); } }[name],
    });
  }
}
