// Types of the npm polyfills the shim's node: parts bundle that ship none.
declare module 'path-browserify' {
  const path: Record<string, unknown>;
  export default path;
}
declare module 'readable-stream/lib/stream.js' {
  const stream: Record<string, unknown>;
  export = stream;
}
declare module 'readable-stream/lib/stream/promises.js' {
  const promises: Record<string, unknown>;
  export = promises;
}
declare module 'string_decoder/lib/string_decoder.js' {
  export const StringDecoder: new (encoding?: string) => { write(b: Uint8Array): string; end(b?: Uint8Array): string };
}
