/**
 * Node built-in modules at bundle time. `node:fs` (or bare `fs`, which Deno resolves the same
 * way, in a script and in an npm package alike) becomes a small virtual CommonJS module that
 * asks the isolate's shim for the module (`module.exports = __rtc_node("fs")`): the module
 * itself lives in the shim's parts (sandboxes/shim/parts/node-*), built over the same broker
 * ops and permission checks as the Deno API, and is evaluated on the script's first import.
 * Being CommonJS, its named imports (`import { readFileSync } from "node:fs"`) read the
 * module's properties, so no export list is kept here.
 *
 * A built-in the sandbox does not offer (node:vm, node:worker_threads, node:net, ...) is
 * refused here with one line naming it (RTC_ERR_NPM_NODE_BUILTIN).
 */
import type * as esbuild from 'esbuild';
import { kernelError, type KernelError } from '../../kernel/errors.ts';
import { NODE_MODULE_REFUSALS, NODE_MODULES } from '../shim/node/modules.ts';
import { owningPackage } from './npm-resolve.ts';

/**
 * The parameter of the bundle's wrapper function (bundle.ts `wrapModule`) through which the
 * shim hands the module body its Node built-ins: never a global, so a script that imports
 * none sees nothing new, and nothing outside the bundle can reach it.
 */
export const NODE_REQUIRE = '__rtc_node';

export const NODE_NAMESPACE = 'rtc-node';

/** `node:fs/promises` → `fs/promises`; a bare `fs` stays `fs`. */
export function builtinName(specifier: string): string {
  return specifier.startsWith('node:') ? specifier.slice('node:'.length) : specifier;
}

export function isOfferedBuiltin(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(NODE_MODULES, name);
}

/** The one-line refusal of a built-in the sandbox does not offer. */
export function builtinRefusal(specifier: string, importer: string, importerPath: string): KernelError {
  const name = builtinName(specifier);
  const why = NODE_MODULE_REFUSALS[name.split('/')[0]!];
  const reason = `the sandbox does not offer the Node built-in "node:${name}"${why ? ` (${why})` : ''}`;
  const owner = owningPackage(importerPath);
  if (owner) return kernelError('RTC_ERR_NPM_NODE_BUILTIN', `npm package "${owner.name}" imports "${specifier}" (in ${importer}): ${reason}, so this package cannot run here`);
  return kernelError('RTC_ERR_NPM_NODE_BUILTIN', `"${specifier}": ${reason}; see docs/sandbox.md, "What the sandbox supports"`);
}

/** The resolve result of an offered built-in: the virtual module of the `rtc-node` namespace. */
export function resolveBuiltin(specifier: string): esbuild.OnResolveResult {
  return { path: builtinName(specifier), namespace: NODE_NAMESPACE };
}

/** The virtual module's code: the shim's instance of the module, as CommonJS. */
export function builtinModuleSource(name: string): string {
  return `module.exports = ${NODE_REQUIRE}(${JSON.stringify(name)});\n`;
}
