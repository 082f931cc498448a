'use strict';
/**
 * The only file a sandbox host process starts from. The host's code (a bundle of
 * host-main.ts the kernel builds in its own memory from its own sources) arrives as the
 * first IPC message and is compiled here: nothing the host runs is read from a cache on
 * disk, so nothing planted in one can run as the host (issue 12, item 11).
 */
const Module = require('node:module');
const path = require('node:path');

process.once('message', (message) => {
  if (!message || message.t !== 'boot' || typeof message.code !== 'string' || typeof message.root !== 'string') {
    process.exitCode = 70;
    process.disconnect?.();
    return;
  }
  const filename = path.join(message.root, 'sandboxes', 'pool', 'host-main.bundle.cjs');
  const host = new Module(filename, module);
  host.filename = filename;
  host.paths = Module._nodeModulePaths(path.dirname(filename));
  host._compile(message.code, filename);
});
