/**
 * readable-stream reads globalThis.Blob once as it loads, only to ask `x instanceof Blob`
 * later. Reading the global would load the fetch part (where Blob lives) for every script that
 * touches a stream or process.stdout. While readable-stream loads, Blob is this stand-in: an
 * instanceof that asks the real Blob once the fetch part is loaded (no Blob exists before).
 * Imported before readable-stream; index.ts puts the global back after it.
 */
import { loadedPart } from '../../parts-loader.ts';

const lazyBlob = Object.getOwnPropertyDescriptor(globalThis, 'Blob');
const isLazy = typeof lazyBlob?.get === 'function' && (lazyBlob.get as { lazy?: boolean }).lazy === true;

class BlobCheck {
  static [Symbol.hasInstance](value: unknown): boolean {
    const fetchPart = loadedPart<{ Blob: new () => unknown }>('fetch');
    return fetchPart !== undefined && value instanceof fetchPart.Blob;
  }
}

if (isLazy) Object.defineProperty(globalThis, 'Blob', { value: BlobCheck, configurable: true, writable: true });

/** Puts the global Blob back as it was (the lazy accessor), unless the part loaded meanwhile. */
export function restoreBlob(): void {
  if (isLazy && Object.getOwnPropertyDescriptor(globalThis, 'Blob')?.value === BlobCheck) Object.defineProperty(globalThis, 'Blob', lazyBlob!);
}
