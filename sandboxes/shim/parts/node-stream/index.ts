/**
 * `node:stream`, `node:stream/promises` and `node:string_decoder`: readable-stream 4 (Node's
 * own streams, published for other runtimes) over the shim's Buffer, EventEmitter and process
 * (their bare imports are the shim's modules: node/modules.ts PART_NODE_ALIASES). Pure code.
 */
import { restoreBlob } from './blob-stand-in.ts';
import Stream from 'readable-stream/lib/stream.js';
import streamPromises from 'readable-stream/lib/stream/promises.js';
import { StringDecoder } from 'string_decoder/lib/string_decoder.js';

restoreBlob();

const stream = Stream as unknown as Record<string, unknown>;
const promises = streamPromises as unknown as Record<string, unknown>;

Object.defineProperty(stream, 'promises', { value: promises, enumerable: true, configurable: true, writable: true });
Object.defineProperty(stream, 'default', { value: stream, enumerable: false, configurable: true, writable: true });
Object.defineProperty(promises, 'default', { value: promises, enumerable: false, configurable: true, writable: true });

const stringDecoder = { StringDecoder };
Object.defineProperty(stringDecoder, 'default', { value: stringDecoder, enumerable: false });

export const modules = { stream, 'stream/promises': promises, string_decoder: stringDecoder };
