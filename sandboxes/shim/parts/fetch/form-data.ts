/** `FormData`, and the two encodings a body can carry it in (multipart and urlencoded). */
import { PRIVATE_INSPECT, inspectPrefixed } from '../../web/inspect.ts';
import { TextDecoder, TextEncoder } from '../../web/text-encoding.ts';
import { requireArgs } from '../events/event.ts';
import { Blob, File, blobBytes } from './blob.ts';

type Entry = [string, string | File];

function toEntryValue(value: unknown, filename?: string): string | File {
  if (value instanceof Blob) {
    const name = filename !== undefined ? String(filename) : value instanceof File ? value.name : 'blob';
    if (value instanceof File && filename === undefined) return value;
    return new File([value], name, { type: value.type, ...(value instanceof File ? { lastModified: value.lastModified } : {}) });
  }
  return String(value);
}

export class FormData {
  #entries: Entry[] = [];

  constructor(form?: unknown) {
    if (form !== undefined) throw new TypeError("Failed to construct 'FormData': parameter 1 is not of type 'HTMLFormElement'.");
  }

  append(name: string, value: string | Blob, filename?: string): void {
    requireArgs(arguments.length, 2, 'append', 'FormData');
    this.#entries.push([String(name), toEntryValue(value, filename)]);
  }

  set(name: string, value: string | Blob, filename?: string): void {
    requireArgs(arguments.length, 2, 'set', 'FormData');
    const key = String(name);
    const entry: Entry = [key, toEntryValue(value, filename)];
    const at = this.#entries.findIndex(([k]) => k === key);
    if (at === -1) this.#entries.push(entry);
    else this.#entries = this.#entries.filter(([k], i) => k !== key || i === at).map((e) => (e[0] === key ? entry : e));
  }

  get(name: string): string | File | null {
    requireArgs(arguments.length, 1, 'get', 'FormData');
    return this.#entries.find(([k]) => k === String(name))?.[1] ?? null;
  }

  getAll(name: string): (string | File)[] {
    requireArgs(arguments.length, 1, 'getAll', 'FormData');
    return this.#entries.filter(([k]) => k === String(name)).map(([, v]) => v);
  }

  has(name: string): boolean {
    requireArgs(arguments.length, 1, 'has', 'FormData');
    return this.#entries.some(([k]) => k === String(name));
  }

  delete(name: string): void {
    requireArgs(arguments.length, 1, 'delete', 'FormData');
    this.#entries = this.#entries.filter(([k]) => k !== String(name));
  }

  forEach(callback: (value: string | File, key: string, parent: FormData) => void, thisArg?: unknown): void {
    for (const [k, v] of [...this.#entries]) callback.call(thisArg, v, k, this);
  }

  *entries(): IterableIterator<Entry> {
    for (const e of [...this.#entries]) yield [e[0], e[1]];
  }

  *keys(): IterableIterator<string> {
    for (const [k] of [...this.#entries]) yield k;
  }

  *values(): IterableIterator<string | File> {
    for (const [, v] of [...this.#entries]) yield v;
  }

  [Symbol.iterator](): IterableIterator<Entry> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'FormData';
  }

  [PRIVATE_INSPECT](): unknown {
    if (!(#entries in this)) return 'FormData';
    return inspectPrefixed('FormData', Object.fromEntries(this.#entries));
  }
}

const CRLF = '\r\n';

function escapeName(name: string): string {
  return name.replace(/\n/g, '%0A').replace(/\r/g, '%0D').replace(/"/g, '%22');
}

/** multipart/form-data: the body bytes and the boundary its content type names. */
export function encodeMultipart(form: FormData, boundarySeed: () => string): { bytes: Uint8Array; boundary: string } {
  const boundary = `----${boundarySeed()}`;
  const encoder = new TextEncoder();
  const pieces: Uint8Array[] = [];
  for (const [name, value] of form) {
    let head = `--${boundary}${CRLF}Content-Disposition: form-data; name="${escapeName(name)}"`;
    if (typeof value === 'string') {
      pieces.push(encoder.encode(`${head}${CRLF}${CRLF}${value.replace(/\r(?!\n)|(?<!\r)\n/g, CRLF)}${CRLF}`));
    } else {
      head += `; filename="${escapeName(value.name)}"${CRLF}Content-Type: ${value.type || 'application/octet-stream'}${CRLF}${CRLF}`;
      pieces.push(encoder.encode(head), blobBytes(value), encoder.encode(CRLF));
    }
  }
  pieces.push(encoder.encode(`--${boundary}--${CRLF}`));
  const size = pieces.reduce((n, p) => n + p.byteLength, 0);
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const p of pieces) {
    bytes.set(p, at);
    at += p.byteLength;
  }
  return { bytes, boundary };
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  outer: for (let i = from; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** Parses a multipart/form-data body; `contentType` carries the boundary. */
export function decodeMultipart(bytes: Uint8Array, contentType: string): FormData {
  const match = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!match) throw new TypeError('Missing boundary parameter in mime type of multipart formdata.');
  const boundary = new TextEncoder().encode(`--${match[1] ?? match[2]!.trim()}`);
  const decoder = new TextDecoder();
  const form = new FormData();
  let at = indexOf(bytes, boundary, 0);
  if (at === -1) throw new TypeError('Unable to parse body as form data.');
  for (;;) {
    at += boundary.length;
    if (bytes[at] === 0x2d && bytes[at + 1] === 0x2d) break;
    at += 2; // CRLF after the boundary
    const headerEnd = indexOf(bytes, new TextEncoder().encode('\r\n\r\n'), at);
    if (headerEnd === -1) throw new TypeError('Unable to parse body as form data.');
    const headers = decoder.decode(bytes.subarray(at, headerEnd)).split('\r\n');
    const next = indexOf(bytes, boundary, headerEnd + 4);
    if (next === -1) throw new TypeError('Unable to parse body as form data.');
    const content = bytes.subarray(headerEnd + 4, next - 2);
    const disposition = headers.find((h) => /^content-disposition:/i.test(h)) ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1] ?? '';
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
    const type = headers.find((h) => /^content-type:/i.test(h))?.split(':').slice(1).join(':').trim() ?? '';
    if (filename !== undefined) form.append(name, new File([content.slice()], filename, { type }));
    else form.append(name, decoder.decode(content));
    at = next;
  }
  return form;
}

export function decodeUrlEncoded(text: string): FormData {
  const form = new FormData();
  const Params = (globalThis as unknown as { URLSearchParams: new (init: string) => Iterable<[string, string]> }).URLSearchParams;
  for (const [k, v] of new Params(text)) form.append(k, v);
  return form;
}
