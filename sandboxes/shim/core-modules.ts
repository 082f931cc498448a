/**
 * The shim's core modules a part may import, by path under sandboxes/shim/: a part's
 * bundle asks for them as `require("rtc:<path>")` and gets these very instances, so a part
 * shares the core's host binding, error classes and timers instead of holding copies.
 */
import * as host from './host.ts';
import * as partsLoader from './parts-loader.ts';
import * as lazyGlobals from './lazy-globals.ts';
import * as denoErrors from './deno/errors.ts';
import * as denoFs from './deno/fs.ts';
import * as denoNamespaceRef from './deno/namespace-ref.ts';
import * as denoCommand from './deno/command.ts';
import * as base64 from './web/base64.ts';
import * as clock from './web/clock.ts';
import * as inspect from './web/inspect.ts';
import * as textEncoding from './web/text-encoding.ts';
import * as timers from './web/timers.ts';
import * as crypto from './web/crypto.ts';
import * as unsupported from './unsupported.ts';
import * as shimConfigModule from './shim-config.ts';
import * as lifecycle from './lifecycle.ts';
import * as denoNamespace from './deno/namespace.ts';

export const CORE_MODULES: Readonly<Record<string, unknown>> = Object.freeze({
  'host.ts': host,
  'parts-loader.ts': partsLoader,
  'lazy-globals.ts': lazyGlobals,
  'deno/errors.ts': denoErrors,
  'deno/fs.ts': denoFs,
  'deno/namespace-ref.ts': denoNamespaceRef,
  'deno/command.ts': denoCommand,
  'web/base64.ts': base64,
  'web/clock.ts': clock,
  'web/inspect.ts': inspect,
  'web/text-encoding.ts': textEncoding,
  'web/timers.ts': timers,
  'web/crypto.ts': crypto,
  'unsupported.ts': unsupported,
  'shim-config.ts': shimConfigModule,
  'lifecycle.ts': lifecycle,
  'deno/namespace.ts': denoNamespace,
});
