#!/usr/bin/env node
// Builds the precompiled CLI: the kernel and the features bundled by esbuild into one ES module, `.build/runtimectl.mjs`, so
// `runtimectl` starts without compiling TypeScript. npm packages stay external (they load
// from node_modules as usual). `import.meta.dirname`/`filename`/`url` of each source file are
// written in as that file's own, so paths computed from them are what they are under tsx.
//
// `.build/runtimectl.json` lists every source file the bundle was made from, with its size
// and modification time, and the checkout it was built in: bin/runtimectl.js runs the bundle
// only while all of them are unchanged, and otherwise runs the sources through tsx. Run by
// `npm ci`/`npm install` (the `prepare` script) and `npm run build`; in a tree without the
// sources (the Docker build stage installs before copying them) it does nothing.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = path.join(ROOT, '.build');
export const BUNDLE = path.join(OUT_DIR, 'runtimectl.mjs');
export const MANIFEST = path.join(OUT_DIR, 'runtimectl.json');

const INLINED = new Set(['zod', 'yaml']);

function externalPackages() {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const names = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((name) => !INLINED.has(name));
  return names.flatMap((name) => [name, `${name}/*`]);
}

// Occurrences outside quotes only: sandboxes/loader/bundle.ts names 'import.meta.url' as a string.
const META = /(?<![\w'"`.])import\.meta\.(dirname|filename|url)\b(?!['"`])/g;

const ownMeta = {
  name: 'own-import-meta',
  setup(build) {
    build.onLoad({ filter: /\.(ts|mts)$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      const values = { dirname: path.dirname(args.path), filename: args.path, url: pathToFileURL(args.path).href };
      return { contents: text.replace(META, (_m, key) => JSON.stringify(values[key])), loader: 'ts' };
    });
  },
};

export async function buildCli({ quiet = false } = {}) {
  if (!existsSync(path.join(ROOT, 'cli', 'main.ts'))) {
    if (!quiet) console.log('runtimectl build: no sources here yet (cli/main.ts); nothing built');
    return false;
  }
  const esbuild = await import('esbuild');
  // Every plugin, first-party or not, is bundled for its isolate at run time: the CLI bundle is the kernel and the features only.
  const entry = `export { main } from ${JSON.stringify(path.join(ROOT, 'cli', 'main.ts'))};`;
  const result = await esbuild.build({
    stdin: { contents: entry, resolveDir: ROOT, sourcefile: 'runtimectl-entry.ts', loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // npm packages load from node_modules, except the pure-JS ones every command loads: a
    // package of many small files costs more to resolve and read than to parse once inlined.
    external: externalPackages(),
    write: false,
    metafile: true,
    sourcemap: 'linked',
    // Chunks: a command loads its own code only (`--version` loads almost nothing).
    splitting: true,
    outdir: OUT_DIR,
    entryNames: 'runtimectl',
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    plugins: [ownMeta],
    // inlined CommonJS (yaml) requires Node built-ins: give the module a require of its own
    banner: { js: "import { createRequire as __runtimectlRequire } from 'node:module'; const require = __runtimectlRequire(import.meta.url);" },
    logLevel: 'silent',
  });
  mkdirSync(OUT_DIR, { recursive: true });
  const inputs = {};
  for (const input of Object.keys(result.metafile.inputs)) {
    if (input.startsWith('<stdin>') || input === 'runtimectl-entry.ts') continue;
    const file = path.resolve(ROOT, input);
    const st = statSync(file);
    inputs[path.relative(ROOT, file)] = [st.size, st.mtimeMs];
  }
  // Old chunks go: the entry names only the chunks of this build.
  rmSync(path.join(OUT_DIR, 'chunks'), { recursive: true, force: true });
  mkdirSync(path.join(OUT_DIR, 'chunks'), { recursive: true });
  for (const file of result.outputFiles) {
    writeFileSync(`${file.path}.tmp`, file.contents);
    renameSync(`${file.path}.tmp`, file.path);
  }
  const manifest = { format: 'runtimectl.build/1', root: ROOT, node: process.version, inputs };
  writeFileSync(`${MANIFEST}.tmp`, `${JSON.stringify(manifest)}\n`);
  renameSync(`${MANIFEST}.tmp`, MANIFEST);
  if (!quiet) console.log(`runtimectl build: ${path.relative(ROOT, BUNDLE)} from ${Object.keys(inputs).length} source files`);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildCli().catch((error) => {
    console.error(`runtimectl build: ${error.message}`);
    process.exitCode = 1;
  });
}
