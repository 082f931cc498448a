/**
 * The Node built-in modules the sandbox offers (`import fs from "node:fs"`, or bare `fs`, as
 * Deno resolves it): module name → the shim part that implements it and the key of that part's
 * exports holding the module. The build (sandboxes/loader/node-builtins.ts) refuses every other
 * built-in at bundle time with one line naming it; the shim's loader (node-require.ts)
 * evaluates a part on a script's first import of one of its modules, so a script that imports
 * none pays nothing.
 *
 * Data only: the kernel's build and the isolate's shim both read it, so the two never disagree.
 */
export interface NodeModuleEntry {
  /** the shim part (sandboxes/shim/parts/<part>) */
  part: string;
  /** the key of the part's `modules` export that is this module */
  key: string;
}

const entry = (part: string, key: string): NodeModuleEntry => ({ part, key });

export const NODE_MODULES: Readonly<Record<string, NodeModuleEntry>> = Object.freeze({
  assert: entry('node-assert', 'assert'),
  'assert/strict': entry('node-assert', 'assert/strict'),
  buffer: entry('node-buffer', 'buffer'),
  child_process: entry('node-child-process', 'child_process'),
  crypto: entry('node-crypto', 'crypto'),
  events: entry('node-events', 'events'),
  fs: entry('node-fs', 'fs'),
  'fs/promises': entry('node-fs', 'fs/promises'),
  os: entry('node-os', 'os'),
  path: entry('node-path', 'path'),
  'path/posix': entry('node-path', 'path/posix'),
  process: entry('node-process', 'process'),
  querystring: entry('node-url', 'querystring'),
  stream: entry('node-stream', 'stream'),
  'stream/promises': entry('node-stream', 'stream/promises'),
  string_decoder: entry('node-stream', 'string_decoder'),
  timers: entry('node-timers', 'timers'),
  'timers/promises': entry('node-timers', 'timers/promises'),
  url: entry('node-url', 'url'),
  util: entry('node-util', 'util'),
  'util/types': entry('node-util', 'util/types'),
});

/** Why a built-in outside the table is not offered, where there is more to say than "not offered". */
export const NODE_MODULE_REFUSALS: Readonly<Record<string, string>> = Object.freeze({
  vm: 'it evaluates code outside the sandbox\'s module system',
  worker_threads: 'a script runs in one isolate',
  inspector: 'there is no debugger in the sandbox',
  v8: 'the engine is the kernel\'s',
  cluster: 'a script runs in one isolate',
  module: 'a script loads only the modules its bundle holds',
  net: 'the sandbox offers no sockets (fetch is the network)',
  tls: 'the sandbox offers no sockets (fetch is the network)',
  dgram: 'the sandbox offers no sockets (fetch is the network)',
  http: 'use fetch (the sandbox offers no sockets or servers)',
  https: 'use fetch (the sandbox offers no sockets or servers)',
  http2: 'use fetch (the sandbox offers no sockets or servers)',
  dns: 'name resolution is the kernel\'s',
  wasi: 'the sandbox has no WASI host',
  repl: 'there is no terminal in the sandbox',
  readline: 'there is no terminal in the sandbox',
  tty: 'there is no terminal in the sandbox',
});

/**
 * Inside the shim's own parts: the bare imports of the npm polyfills a part bundles
 * (readable-stream's `require("buffer")`, `require("process/")`) that must be the shim's
 * module rather than a second copy, so every part shares one Buffer, one EventEmitter and
 * one process. Anything else bare is bundled from node_modules.
 */
export const PART_NODE_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  buffer: 'buffer',
  events: 'events',
  process: 'process',
  'process/': 'process',
  util: 'util',
  'util/': 'util',
});
