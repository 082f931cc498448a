/** `Blob` and `File` (the File API), held as bytes inside the isolate. */
import { PRIVATE_INSPECT, inspectAs } from '../../web/inspect.ts';
import { TextDecoder, TextEncoder } from '../../web/text-encoding.ts';
import { ReadableStream } from '../streams.ts';

type BlobPart = string | ArrayBuffer | ArrayBufferView | Blob;

let bytesOf: (blob: Blob) => Uint8Array;

function partBytes(part: BlobPart, endings: string): Uint8Array {
  if (part instanceof Blob) return bytesOf(part);
  if (part instanceof ArrayBuffer) return new Uint8Array(part.slice(0));
  if (ArrayBuffer.isView(part)) return new Uint8Array(part.buffer.slice(part.byteOffset, part.byteOffset + part.byteLength));
  const text = endings === 'native' ? String(part).replace(/\r?\n/g, '\n') : String(part);
  return new TextEncoder().encode(text);
}

function normalizeType(type: unknown): string {
  const t = type === undefined ? '' : String(type);
  return /[^\u0020-\u007e]/.test(t) ? '' : t.toLowerCase();
}

export class Blob {
  readonly #bytes: Uint8Array;
  readonly #type: string;

  constructor(parts: Iterable<BlobPart> = [], options: { type?: string; endings?: 'transparent' | 'native' } = {}) {
    if (parts !== undefined && (parts === null || typeof parts !== 'object' || typeof (parts as Iterable<BlobPart>)[Symbol.iterator] !== 'function')) {
      throw new TypeError("Failed to construct 'Blob': Argument 1 can not be converted to sequence.");
    }
    const endings = options?.endings ?? 'transparent';
    if (endings !== 'transparent' && endings !== 'native') {
      throw new TypeError(`Failed to construct 'Blob': The provided value '${String(endings)}' is not a valid enum value of type EndingType`);
    }
    const chunks = [...(parts ?? [])].map((p) => partBytes(p, endings));
    const size = chunks.reduce((n, c) => n + c.byteLength, 0);
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      bytes.set(c, at);
      at += c.byteLength;
    }
    this.#bytes = bytes;
    this.#type = normalizeType(options?.type);
  }

  static {
    bytesOf = (blob) => blob.#bytes;
  }

  get size(): number {
    return this.#bytes.byteLength;
  }

  get type(): string {
    return this.#type;
  }

  slice(start?: number, end?: number, contentType?: string): Blob {
    const size = this.size;
    const clamp = (v: number | undefined, dflt: number): number => {
      if (v === undefined) return dflt;
      const n = Math.trunc(Number(v)) || 0;
      return n < 0 ? Math.max(size + n, 0) : Math.min(n, size);
    };
    const from = clamp(start, 0);
    const to = clamp(end, size);
    return new Blob([this.#bytes.subarray(from, Math.max(from, to))], { type: contentType === undefined ? '' : contentType });
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.#bytes.slice().buffer as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return this.#bytes.slice();
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(this.#bytes);
  }

  stream(): ReadableStream<Uint8Array> {
    const bytes = this.#bytes;
    let offset = 0;
    return new ReadableStream<Uint8Array>({
      type: 'bytes',
      pull(controller: { enqueue(chunk: Uint8Array): void; close(): void }) {
        if (offset >= bytes.byteLength) {
          controller.close();
          return;
        }
        const end = Math.min(offset + 65536, bytes.byteLength);
        controller.enqueue(bytes.slice(offset, end));
        offset = end;
      },
    } as unknown as UnderlyingSource<Uint8Array>);
  }

  get [Symbol.toStringTag](): string {
    return 'Blob';
  }

  [PRIVATE_INSPECT](): unknown {
    if (!(#bytes in this)) return (this as object).constructor.name;
    return inspectAs('Blob', { size: this.size, type: this.type });
  }
}

type UnderlyingSource<T> = ConstructorParameters<typeof ReadableStream<T>>[0];

export class File extends Blob {
  readonly #name: string;
  readonly #lastModified: number;

  constructor(parts: Iterable<BlobPart>, name: string, options: { type?: string; endings?: 'transparent' | 'native'; lastModified?: number } = {}) {
    if (arguments.length < 2) throw new TypeError(`Failed to construct 'File': 2 arguments required, but only ${arguments.length} present`);
    super(parts, options);
    this.#name = String(name);
    this.#lastModified = options?.lastModified === undefined ? Date.now() : Math.trunc(Number(options.lastModified));
  }

  get name(): string {
    return this.#name;
  }

  get lastModified(): number {
    return this.#lastModified;
  }

  get webkitRelativePath(): string {
    return '';
  }

  override get [Symbol.toStringTag](): string {
    return 'File';
  }

  override [PRIVATE_INSPECT](): unknown {
    if (!(#name in this)) return 'File';
    return inspectAs('File', { name: this.name, size: this.size, type: this.type });
  }
}

/** The bytes of a Blob without copying (fetch bodies, FormData encoding). */
export function blobBytes(blob: Blob): Uint8Array {
  return bytesOf(blob);
}
