/** `runtimectl plugins list` and `runtimectl plugins check [PATH]`. */
import path from 'node:path';
import { isKernelError, kernelError } from '../../kernel/errors.ts';
import { pluginBundleRecord } from '../../kernel/substrate/substrate.ts';
import { loadPlugin, scanPlugins, PLUGINS_DIR, type LoadedPlugin } from '../../kernel/plugins/registry.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { parseFlags, printJson, type Command } from '../../kernel/cli/command.ts';

function describe(plugin: LoadedPlugin) {
  return {
    id: plugin.manifest.id,
    version: plugin.manifest.version,
    kind: plugin.manifest.kind,
    sandbox: plugin.profile.name,
    tier: plugin.profile.tier,
    dir: path.relative(PROJECT_ROOT, plugin.dir),
    permissions: plugin.manifest.permissions,
    bindings: plugin.manifest.bindings,
    exports: plugin.manifest.exports,
  };
}

export const pluginsListCommand: Command = {
  path: ['plugins', 'list'],
  summary: 'list installed plugins with their kind, sandbox and permissions',
  usage: 'Usage: runtimectl plugins list [--json]\n\nLists plugins under plugins/ (refused ones with the reason).\n',
  async run(argv, io) {
    const { values } = parseFlags(argv, { json: { type: 'boolean' } }, 'plugins list', false);
    const scan = scanPlugins();
    const refused = scan.refused.map((r) => ({ dir: path.relative(PROJECT_ROOT, r.dir), code: r.error.code, reason: r.error.message }));
    if (values.json) printJson(io, { plugins: scan.plugins.map(describe), refused });
    else {
      const idWidth = Math.max(24, ...scan.plugins.map((p) => p.manifest.id.length));
      for (const p of scan.plugins) io.stdout(`${p.manifest.id.padEnd(idWidth)} ${p.manifest.version.padEnd(8)} ${p.manifest.kind.padEnd(14)} ${p.profile.name}\n`);
      for (const r of refused) io.stderr(`refused ${r.dir}: ${r.code}: ${r.reason}\n`);
    }
    return refused.length === 0 ? 0 : 1;
  },
};

export const pluginsCheckCommand: Command = {
  path: ['plugins', 'check'],
  summary: 'validate plugin manifests, build their bundles, report grants',
  usage: 'Usage: runtimectl plugins check [PATH] [--json]\n\nPATH is one plugin folder; without it every folder under plugins/ is checked.\nExit 0 when every manifest is valid and every bundle builds.\n',
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' } }, 'plugins check');
    const dirs = positionals.length > 0 ? positionals.map((p) => path.resolve(io.cwd, p)) : undefined;
    const results: Record<string, unknown>[] = [];
    let failed = 0;
    // Persistence backends are host modules (they are digested, not bundled for an isolate).
    const check = async (plugin: LoadedPlugin) => {
      const record = await pluginBundleRecord(plugin);
      if ('error' in record) throw kernelError('RTC_ERR_BUILD_FAILED', record.error.replace(/^RTC_ERR_BUILD_FAILED: /, ''));
      results.push({ ...describe(plugin), ok: true, bundle: { kind: record.kind, digest: record.digest, inputs: record.inputs } });
    };
    if (dirs) {
      for (const dir of dirs) {
        try {
          await check(loadPlugin(dir));
        } catch (error) {
          if (!isKernelError(error)) throw error;
          failed++;
          results.push({ dir: path.relative(io.cwd, dir) || '.', ok: false, code: error.code, reason: error.message });
        }
      }
    } else {
      const scan = scanPlugins(PLUGINS_DIR);
      for (const plugin of scan.plugins) {
        try {
          await check(plugin);
        } catch (error) {
          if (!isKernelError(error)) throw error;
          failed++;
          results.push({ id: plugin.manifest.id, ok: false, code: error.code, reason: error.message });
        }
      }
      for (const r of scan.refused) {
        failed++;
        results.push({ dir: path.relative(PROJECT_ROOT, r.dir), ok: false, code: r.error.code, reason: r.error.message });
      }
    }
    if (values.json) printJson(io, { ok: failed === 0, plugins: results });
    else {
      for (const r of results) {
        if (r.ok) io.stdout(`ok      ${String(r.id)}  bundle ${String((r.bundle as { digest: string }).digest).slice(0, 12)}  grants ${JSON.stringify(r.permissions)}\n`);
        else io.stderr(`refused ${String(r.id ?? r.dir)}: ${String(r.code)}: ${String(r.reason)}\n`);
      }
    }
    return failed === 0 ? 0 : 1;
  },
};
