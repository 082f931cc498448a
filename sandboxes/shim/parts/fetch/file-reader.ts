/** `FileReader`: reads a Blob as text, bytes, a data URL or a binary string, with its events. */
import { bytesToBase64 } from '../../web/base64.ts';
import { TextDecoder } from '../../web/text-encoding.ts';
import { Event, ProgressEvent } from '../events/event.ts';
import { EventTarget, defineEventHandler } from '../events/target.ts';
import { DOMException } from '../dom.ts';
import { Blob, blobBytes } from './blob.ts';

type Kind = 'text' | 'arrayBuffer' | 'dataURL' | 'binaryString';

export class FileReader extends EventTarget {
  static readonly EMPTY = 0;
  static readonly LOADING = 1;
  static readonly DONE = 2;
  #state = 0;
  #result: string | ArrayBuffer | null = null;
  #error: DOMException | null = null;
  #aborted = false;

  get readyState(): number {
    return this.#state;
  }
  get result(): string | ArrayBuffer | null {
    return this.#result;
  }
  get error(): DOMException | null {
    return this.#error;
  }

  #read(blob: Blob, kind: Kind, encoding?: string): void {
    if (!(blob instanceof Blob)) throw new TypeError("Failed to execute 'read' on 'FileReader': parameter 1 is not of type 'Blob'.");
    if (this.#state === 1) throw new DOMException('Invalid FileReader state.', 'InvalidStateError');
    this.#state = 1;
    this.#result = null;
    this.#aborted = false;
    const bytes = blobBytes(blob);
    queueMicrotask(() => {
      if (this.#aborted) return;
      this.dispatchEvent(new ProgressEvent('loadstart', { loaded: 0, total: bytes.byteLength, lengthComputable: true }));
      setTimeout(() => {
        if (this.#aborted) return;
        this.#result =
          kind === 'text' ? new TextDecoder(encoding ?? 'utf-8').decode(bytes)
          : kind === 'arrayBuffer' ? (bytes.slice().buffer as ArrayBuffer)
          : kind === 'dataURL' ? `data:${blob.type || 'application/octet-stream'};base64,${bytesToBase64(bytes)}`
          : Array.from(bytes, (b) => String.fromCharCode(b)).join('');
        this.#state = 2;
        const progress = { loaded: bytes.byteLength, total: bytes.byteLength, lengthComputable: true };
        this.dispatchEvent(new ProgressEvent('progress', progress));
        this.dispatchEvent(new ProgressEvent('load', progress));
        if (this.#state !== 1) this.dispatchEvent(new ProgressEvent('loadend', progress));
      }, 0);
    });
  }

  readAsText(blob: Blob, encoding?: string): void {
    this.#read(blob, 'text', encoding);
  }
  readAsArrayBuffer(blob: Blob): void {
    this.#read(blob, 'arrayBuffer');
  }
  readAsDataURL(blob: Blob): void {
    this.#read(blob, 'dataURL');
  }
  readAsBinaryString(blob: Blob): void {
    this.#read(blob, 'binaryString');
  }

  abort(): void {
    if (this.#state === 0 || this.#state === 2) {
      this.#result = null;
      return;
    }
    this.#aborted = true;
    this.#state = 2;
    this.#result = null;
    this.dispatchEvent(new Event('abort'));
    this.dispatchEvent(new Event('loadend'));
  }

  override get [Symbol.toStringTag](): string {
    return 'FileReader';
  }
}
for (const [name, value] of Object.entries({ EMPTY: 0, LOADING: 1, DONE: 2 })) Object.defineProperty(FileReader.prototype, name, { value, enumerable: true });
for (const type of ['loadstart', 'progress', 'load', 'abort', 'error', 'loadend']) defineEventHandler(FileReader.prototype, type);
