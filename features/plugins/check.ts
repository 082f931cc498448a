/**
 * What `plugins check` proves of one plugin: its manifest validates (loadPlugin), its bundle
 * builds, and, by loading it, that the module really exports every function the manifest
 * lists (an isolate plugin in a throwaway isolate of its own tier, under its own grant; a
 * host-module backend by importing it). A tool plugin's tools are each one of those exports.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { allPermissionSet } from '../../kernel/permissions/descriptors.ts';
import { PluginInstance } from '../plugin-host/plugin-instance.ts';
import type { LoadedPlugin } from '../../kernel/plugins/registry.ts';
import { displayPath } from '../plugin-search/scan.ts';
import { pluginBundleRecord, type BundleRecord } from '../substrate/substrate.ts';
import { defaultSandboxKit } from '../../sandboxes/index.ts';
import type { SandboxKit } from '../../kernel/sandbox.ts';

export interface CheckedPlugin {
  bundle: Extract<BundleRecord, { digest: string }>;
  /** what the loaded module exports */
  exports: readonly string[];
}

async function loadedExports(plugin: LoadedPlugin, kit: SandboxKit): Promise<readonly string[]> {
  // The placeholders a persona would fill point at a scratch folder of this check.
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'rtc-plugin-check-'));
  const instance = new PluginInstance(plugin, {
    kit,
    allow: allPermissionSet(),
    vars: { state: scratch, workspace: scratch, session: scratch, scratch },
    cwd: scratch,
  });
  try {
    return await instance.exportNames();
  } finally {
    instance.dispose();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Checks one resolved plugin; throws the first problem as a KernelError naming file and field. */
export async function checkPlugin(plugin: LoadedPlugin, cacheDir?: string): Promise<CheckedPlugin> {
  const kit = defaultSandboxKit(cacheDir !== undefined ? { cacheDir } : {});
  const record = await pluginBundleRecord(plugin, kit.loader);
  if ('error' in record) throw kernelError('RTC_ERR_BUILD_FAILED', record.error.replace(/^RTC_ERR_BUILD_FAILED: /, ''));
  const exports = await loadedExports(plugin, kit);
  const missing = plugin.manifest.exports.filter((name) => !exports.includes(name));
  if (missing.length > 0) {
    const file = displayPath(path.join(plugin.dir, 'plugin.yaml'));
    throw kernelError('RTC_ERR_PLUGIN_EXPORT_MISSING', `${file}: exports: ${missing.map((n) => `"${n}"`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} not exported by ${plugin.manifest.entry} (it exports: ${exports.join(', ') || 'nothing'})`, {
      details: { file, field: 'exports', missing: [...missing] },
    });
  }
  return { bundle: record, exports };
}
