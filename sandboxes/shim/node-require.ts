/**
 * The loader of Node built-ins inside the isolate: a bundle's `node:fs` import asks it for
 * "fs" (sandboxes/loader/node-builtins.ts turns the import into that call), and it answers with
 * the module from its shim part (node/modules.ts says which; a part exports its modules as
 * `modules`, by name), evaluating the part on first use. The shim hands it to the module body as the wrapper's parameter, never as a global.
 */
import { NODE_MODULES } from './node/modules.ts';
import { requirePart } from './parts-loader.ts';
import { unsupportedError } from './unsupported.ts';

export function nodeRequire(name: string): unknown {
  const key = String(name);
  const entry = Object.prototype.hasOwnProperty.call(NODE_MODULES, key) ? NODE_MODULES[key] : undefined;
  // The build refuses every other built-in; this is the loader's own guard for a direct call.
  if (!entry) throw unsupportedError(`node:${key}`, 'the sandbox does not offer this Node built-in');
  return requirePart<{ modules: Record<string, unknown> }>(entry.part).modules[entry.key];
}
