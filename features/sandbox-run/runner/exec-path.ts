/**
 * `Deno.execPath()`: a program that behaves like `deno` for `run`, `eval` and `test`, so a
 * script that re-invokes itself (`new Deno.Command(Deno.execPath(), { args: ['eval', code] })`)
 * works under `--allow-run` with that path. It is a small shell script in the kernel's cache
 * folder, named `deno`, that starts `runtimectl deno ...` with this Node and this cache (the
 * child is another sandboxed run: its own grant from its own flags, as with Deno).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLI_ENTRY } from '../../../kernel/version.ts';

const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

function scriptText(cacheDir: string): string {
  return [
    '#!/bin/sh',
    "# Deno.execPath() of runtimectl's sandbox: `deno run|eval|test` as runtimectl deno (features/sandbox-run/runner/exec-path.ts).",
    `RUNTIMECTL_CACHE_DIR=${quote(cacheDir)} exec ${quote(process.execPath)} --no-node-snapshot ${quote(CLI_ENTRY)} deno "$@"`,
    '',
  ].join('\n');
}

const written = new Set<string>();

/** The path of the deno-compatible program for this cache folder (written once, checked by content). */
export function denoExecPath(cacheDir: string): string {
  const file = path.join(path.resolve(cacheDir), 'bin', 'deno');
  if (written.has(file)) return file;
  const text = scriptText(path.resolve(cacheDir));
  if (!existsSync(file) || readFileSync(file, 'utf8') !== text) {
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, text, { mode: 0o755 });
    renameSync(tmp, file);
  }
  written.add(file);
  return file;
}
