/**
 * `runtimectl plugins list`, `plugins check [PATH]` and `plugins new`: the plugin registry as
 * an operator and a plugin author see it. Every verb reads the whole search path: the built-in
 * plugins/, then RUNTIMECTL_PLUGIN_PATH (folders separated by ":"), then each --plugins-dir.
 */
import path from 'node:path';
import { isKernelError, kernelError } from '../../kernel/errors.ts';
import type { LoadedPlugin, PluginRegistry } from '../../kernel/plugins/registry.ts';
import { displayPath, loadPlugin, PLUGIN_PATH_ENV, PLUGINS_DIR, pluginSearchPath, scanRegistry } from '../plugin-search/scan.ts';
import { installPackages } from '../../sandboxes/loader/npm-install.ts';
import { hint, parseFlags, printJson, type CliIo, type Command } from '../command/command.ts';
import { checkPlugin } from './check.ts';
import { CANONICAL_HARNESS, scaffoldPlugin, SCAFFOLD_KINDS, type Scaffolded } from './scaffold.ts';

function describe(plugin: LoadedPlugin) {
  return {
    id: plugin.manifest.id,
    version: plugin.manifest.version,
    kind: plugin.manifest.kind,
    sandbox: plugin.profile.name,
    tier: plugin.profile.tier,
    first_party: plugin.firstParty,
    // an outside plugin asking for an in-process profile: what it asked, granted per persona by trust:
    ...(plugin.requested ? { asks_for: plugin.requested.name } : {}),
    dir: displayPath(plugin.dir),
    source: displayPath(plugin.source),
    permissions: plugin.manifest.permissions,
    bindings: plugin.manifest.bindings,
    exports: plugin.manifest.exports,
    ...(plugin.manifest.tools ? { tools: plugin.manifest.tools.map((t) => `${plugin.manifest.id}.${t.export}`) } : {}),
  };
}

const SEARCH_HELP = `The plugin search path: the built-in plugins/, then $${PLUGIN_PATH_ENV} (folders
separated by ":"), then each --plugins-dir DIR. Plugin ids are unique across all of them.`;

function registryOf(values: { 'plugins-dir'?: string[] | undefined }, io: CliIo): PluginRegistry {
  return scanRegistry(pluginSearchPath({ env: io.env, dirs: values['plugins-dir'] ?? [], cwd: io.cwd }));
}

export const pluginsListCommand: Command = {
  path: ['plugins', 'list'],
  summary: 'list installed plugins with their kind, sandbox and the folder they come from',
  usage: `Usage: runtimectl plugins list [--plugins-dir DIR]... [--json]\n\nLists every plugin on the search path with the sandbox profile it runs under and the folder\nit was found in (refused ones with the reason; exit 1 when one was refused). A plugin from\noutside the checkout's plugins/ that asks for an in-process profile (trusted) runs under\n"default", the isolating tier, unless a persona profile lists its id under trust:.\n\n${SEARCH_HELP}\n`,
  async run(argv, io) {
    const { values } = parseFlags(argv, { json: { type: 'boolean' }, 'plugins-dir': { type: 'string', multiple: true } }, 'plugins list', false);
    const registry = registryOf(values, io);
    const refused = registry.refused.map((r) => ({ dir: displayPath(r.dir), code: r.error.code, reason: r.error.message }));
    if (values.json) printJson(io, { search_path: registry.roots.map(displayPath), plugins: registry.list().map(describe), refused });
    else {
      const idWidth = Math.max(26, ...registry.list().map((p) => p.manifest.id.length));
      for (const p of registry.list()) {
        const sandbox = p.requested ? `${p.profile.name} (asks ${p.requested.name}: grant it with trust: in a persona profile)` : p.profile.name;
        io.stdout(`${p.manifest.id.padEnd(idWidth)} ${p.manifest.version.padEnd(8)} ${p.manifest.kind.padEnd(15)} ${sandbox.padEnd(16)} ${displayPath(p.dir)}\n`);
      }
      for (const r of refused) io.stderr(`refused ${r.dir}: ${r.code}: ${r.reason}\n`);
    }
    return refused.length === 0 ? 0 : 1;
  },
};

export const pluginsCheckCommand: Command = {
  path: ['plugins', 'check'],
  summary: 'validate plugin manifests, build and load their bundles, check their exports',
  usage: `Usage: runtimectl plugins check [PATH]... [--plugins-dir DIR]... [--json]

PATH is one plugin folder; without it every plugin on the search path is checked: the
manifest validates, the bundle builds, and loading it shows that it really exports every
function the manifest lists. Exit 0 when all of that holds for every plugin.

${SEARCH_HELP}
`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' }, 'plugins-dir': { type: 'string', multiple: true } }, 'plugins check');
    const results: Record<string, unknown>[] = [];
    let failed = 0;
    const check = async (plugin: LoadedPlugin) => {
      try {
        const checked = await checkPlugin(plugin);
        results.push({ ...describe(plugin), ok: true, bundle: { kind: checked.bundle.kind, digest: checked.bundle.digest, inputs: checked.bundle.inputs }, loaded_exports: checked.exports });
      } catch (error) {
        if (!isKernelError(error)) throw error;
        failed++;
        results.push({ id: plugin.manifest.id, dir: displayPath(plugin.dir), ok: false, code: error.code, reason: error.message });
      }
    };
    if (positionals.length > 0) {
      for (const dir of positionals.map((p) => path.resolve(io.cwd, p))) {
        let plugin: LoadedPlugin;
        try {
          plugin = loadPlugin(dir);
        } catch (error) {
          if (!isKernelError(error)) throw error;
          failed++;
          results.push({ dir: shownFrom(io.cwd, dir), ok: false, code: error.code, reason: error.message });
          continue;
        }
        await check(plugin);
      }
    } else {
      const registry = registryOf(values, io);
      for (const plugin of registry.list()) await check(plugin);
      for (const r of registry.refused) {
        failed++;
        results.push({ dir: displayPath(r.dir), ok: false, code: r.error.code, reason: r.error.message });
      }
    }
    if (values.json) printJson(io, { ok: failed === 0, plugins: results });
    else {
      for (const r of results) {
        if (r.ok) io.stdout(`ok      ${String(r.id)}  bundle ${String((r.bundle as { digest: string }).digest).slice(0, 12)}  exports ${(r.loaded_exports as string[]).join(', ')}  grants ${JSON.stringify(r.permissions)}\n`);
        else io.stderr(`refused ${String(r.id ?? r.dir)}: ${String(r.code)}: ${String(r.reason)}\n`);
      }
    }
    return failed === 0 ? 0 : 1;
  },
};

/** Where the printed line goes, for each kind of place. */
const WHERE: Record<Scaffolded['selectIn'], string> = {
  'persona profile': 'in a persona profile',
  'gate profile': 'under checks: in a gate profile',
  harness: `in a copy of policies/harnesses/${CANONICAL_HARNESS}.yaml beside the profile, its id the file's name; the profile names it: harness: ./<file>.yaml`,
};

export const pluginsNewCommand: Command = {
  path: ['plugins', 'new'],
  summary: 'write a new plugin (manifest, mod.ts, a test) that check accepts and a persona can select',
  usage: `Usage: runtimectl plugins new --kind KIND NAME [--dir DIR] [--json]

Writes DIR/<prefix>-NAME/ with plugin.yaml (its schema referenced for the editor), mod.ts
(typed by the kind's contract, docs/plugin-contracts.md) and test/mod_test.ts (Deno.test;
run it with node_modules/.bin/deno test --no-check DIR/<prefix>-NAME). The id is <prefix>.NAME.

  --kind KIND   ${SCAFFOLD_KINDS.join(', ')}
  --dir DIR     the plugin folder to write into (default: the built-in plugins/); a folder
                outside the checkout is found through --plugins-dir DIR or $${PLUGIN_PATH_ENV}

Then: runtimectl plugins check <the new folder>, and select it in a persona profile (a gate
check: list it under checks: in a gate profile; a loop step: in the steps: of a harness file
the profile names, harness: ./<file>.yaml); the line to add is printed. How plugins are written: docs/writing-plugins.md.
`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { kind: { type: 'string' }, dir: { type: 'string' }, json: { type: 'boolean' } }, 'plugins new');
    if (!values.kind) throw usage('name the kind: --kind KIND');
    if (positionals.length !== 1) throw usage('name the plugin once: runtimectl plugins new --kind KIND NAME');
    const parent = values.dir ? path.resolve(io.cwd, values.dir) : PLUGINS_DIR;
    const made = scaffoldPlugin(values.kind, positionals[0]!, parent);
    if (values.json) {
      printJson(io, { id: made.id, dir: made.dir, files: made.files, select: made.select, select_in: made.selectIn });
      return 0;
    }
    const outside = path.resolve(parent) !== PLUGINS_DIR;
    io.stdout(`wrote ${displayPath(made.dir)}/: ${made.files.join(', ')}\n`);
    io.stdout(hint(io, `check it:   runtimectl plugins check ${displayPath(made.dir)}\n`));
    io.stdout(`test it:    node_modules/.bin/deno test --no-check ${displayPath(made.dir)}\n`);
    io.stdout(`select it:  ${made.select}   (${WHERE[made.selectIn]})\n`);
    if (outside) io.stdout(`find it:    ${made.selectIn === 'gate profile' ? 'gate' : 'run'} with --plugins-dir ${displayPath(parent)}, or add it to $${PLUGIN_PATH_ENV}\n`);
    return 0;
  },
};

/** A folder named on the command line, as the user sees it: relative to cwd when inside it, else absolute. */
function shownFrom(cwd: string, dir: string): string {
  const rel = path.relative(cwd, dir);
  return rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? dir : rel;
}

function usage(message: string) {
  return kernelError('RTC_ERR_CLI_USAGE', `${message}; see "runtimectl plugins new --help"`);
}

export const pluginsInstallCommand: Command = {
  path: ['plugins', 'install'],
  summary: 'install the npm packages a plugin or script imports (npm: specifiers), with a lockfile',
  usage: `Usage: runtimectl plugins install [PATH] [--registry URL] [--allow-git] [--allow-local]
                                 [--allow-url] [--allow-bundled] [--json]

PATH is a plugin folder, a script, or a folder of scripts (default: the current folder).
The npm: specifiers its modules import (npm:name@range) join the dependencies of the
package.json beside it (created when missing); npm installs them into that folder's
node_modules with install scripts disabled, and writes package-lock.json with an integrity
hash for every package. Runs never install anything: an import of a package that is not
installed at its locked version is refused (RTC_ERR_NPM_NOT_INSTALLED). Packages that are
native addons or need Node built-ins are refused by name. jsr: imports are not supported.

npm runs with no configuration but this command's: no .npmrc (the plugin's, yours or the
global one) and no npm_config_* variable is read, no script runs, no bin is linked. Packages
come from the registry (--registry URL, else RUNTIMECTL_NPM_REGISTRY, else
registry.npmjs.org) and nowhere else; a dependency or lockfile entry that names another
source is refused (RTC_ERR_NPM_SOURCE_REFUSED) unless allowed:
  --allow-git      git repositories (git+ssh:, github:, owner/repo ...): npm runs git
  --allow-local    file:, link:, paths, workspaces
  --allow-url      tarball URLs outside the registry
  --allow-bundled  packages that ship bundled dependencies
`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(
      argv,
      {
        json: { type: 'boolean' },
        registry: { type: 'string' },
        'allow-git': { type: 'boolean' },
        'allow-local': { type: 'boolean' },
        'allow-url': { type: 'boolean' },
        'allow-bundled': { type: 'boolean' },
      },
      'plugins install',
    );
    if (positionals.length > 1) throw kernelError('RTC_ERR_CLI_USAGE', 'plugins install takes one PATH; see "runtimectl plugins install --help"');
    const result = await installPackages(path.resolve(io.cwd, positionals[0] ?? '.'), {
      ...(values.registry ? { registry: values.registry } : {}),
      allow: { git: values['allow-git'] === true, local: values['allow-local'] === true, url: values['allow-url'] === true, bundled: values['allow-bundled'] === true },
      env: io.env,
    });
    if (values.json) printJson(io, { ok: true, ...result });
    else if (result.installed.length === 0) io.stdout(`nothing to install: no npm: imports or dependencies in ${path.relative(io.cwd, result.root) || '.'}\n`);
    else {
      io.stdout(`installed ${result.installed.length} package${result.installed.length === 1 ? '' : 's'} into ${path.join(path.relative(io.cwd, result.root) || '.', 'node_modules')} (lockfile package-lock.json)\n`);
      for (const p of result.installed) io.stdout(`  ${p}\n`);
    }
    return 0;
  },
};
