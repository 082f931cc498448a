/** The Node version Deno 2.9.6's node compatibility reports (`process.version`), and the rest of `process.versions`. */
import { DENO_VERSION } from '../../deno/namespace.ts';

export const NODE_VERSION = '26.3.0';

export function nodeVersions(): Record<string, string> {
  return Object.freeze({
    node: NODE_VERSION,
    uv: '1.43.0',
    zlib: '1.2.11',
    brotli: '1.0.9',
    ares: '1.18.1',
    modules: '108',
    nghttp2: '1.47.0',
    napi: '8',
    llhttp: '6.0.10',
    openssl: '3.0.7+quic',
    cldr: '41.0',
    icu: '71.1',
    tz: '2022b',
    unicode: '14.0',
    deno: DENO_VERSION.deno,
    v8: DENO_VERSION.v8,
    typescript: DENO_VERSION.typescript,
  }) as Record<string, string>;
}
