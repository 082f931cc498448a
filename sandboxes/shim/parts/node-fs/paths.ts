/** Node's path and option arguments: a string, a Buffer or a `file:` URL; no NUL bytes; the encoding options. */
import { invalidArgType, nodeError } from '../node-errors/index.ts';
import { quoteString } from '../../web/inspect.ts';

type BufferLike = Uint8Array & { toString(encoding?: string): string };

export function toPathString(path: unknown, name = 'path'): string {
  let out: string;
  if (typeof path === 'string') out = path;
  else if (path instanceof Uint8Array) out = (path as BufferLike).toString('utf8');
  else if (path !== null && typeof path === 'object' && typeof (path as URL).href === 'string' && (path as URL).protocol !== undefined) {
    const url = path as URL;
    if (url.protocol !== 'file:') throw nodeError(TypeError, 'ERR_INVALID_URL_SCHEME', 'The URL must be of scheme file');
    if (url.hostname !== '' && url.hostname !== 'localhost') throw nodeError(TypeError, 'ERR_INVALID_FILE_URL_HOST', 'File URL host must be "localhost" or empty on linux');
    if (/%2f/i.test(url.pathname)) throw nodeError(TypeError, 'ERR_INVALID_FILE_URL_PATH', 'File URL path must not include encoded / characters');
    out = decodeURIComponent(url.pathname);
  } else throw invalidArgType(name, 'of type string or an instance of Buffer or URL', path);
  if (out.includes('\u0000')) {
    throw nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The argument '${name}' must be a string or Uint8Array without null bytes. Received ${quoteString(out, true)}`);
  }
  return out;
}

export type EncodingOption = string | { encoding?: string | null; flag?: string; mode?: number; withFileTypes?: boolean; recursive?: boolean; signal?: AbortSignal } | null | undefined;

export function encodingOf(options: EncodingOption, fallback: string | null = null): string | null {
  if (options === undefined || options === null) return fallback;
  if (typeof options === 'string') return options;
  if (typeof options === 'object') return options.encoding === undefined ? fallback : options.encoding;
  throw invalidArgType('options', 'one of type string or object', options);
}

export function optionsOf<T extends object>(options: unknown, defaults: T): T & Record<string, unknown> {
  if (options === undefined || options === null || typeof options === 'function') return { ...defaults } as T & Record<string, unknown>;
  if (typeof options === 'string') return { ...defaults, encoding: options } as T & Record<string, unknown>;
  if (typeof options !== 'object') throw invalidArgType('options', 'one of type string or object', options);
  return { ...defaults, ...(options as object) } as T & Record<string, unknown>;
}

/** Node's mode argument: a number or an octal string. */
export function modeOf(mode: unknown, fallback: number): number {
  if (mode === undefined || mode === null) return fallback;
  if (typeof mode === 'number') return mode;
  if (typeof mode === 'string' && /^[0-7]+$/.test(mode)) return Number.parseInt(mode, 8);
  throw invalidArgType('mode', 'of type number', mode);
}
