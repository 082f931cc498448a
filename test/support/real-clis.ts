/**
 * The real codex and claude CLIs for the tests that check the executors against them. They
 * are ~800 MB together (native binaries), too big for every `npm ci`, so they are installed
 * on demand into a cache folder outside the repository (and outside the kernel's cache,
 * which the OS sandbox hides): `RUNTIMECTL_REAL_CLIS=1` turns the tests on (.ci/run sets it),
 * `RUNTIMECTL_REAL_CLIS_DIR` moves the folder (default ~/.cache/runtimectl-test-clis).
 * Without the flag the tests skip, saying how to run them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The versions checked (codex 0.171 runs on Node 20; claude-code 2.1.x ships a native binary, so its engines field does not bind it). */
export const REAL_CLI_PACKAGES = ['@openai/codex@0.171.0', '@anthropic-ai/claude-code@2.1.332'];

function install(): { bin: string } | string {
  if (process.env.RUNTIMECTL_REAL_CLIS !== '1') return 'set RUNTIMECTL_REAL_CLIS=1 to check the executors against the real codex and claude CLIs (about 800 MB, installed once into a cache folder; CI sets it)';
  const dir = process.env.RUNTIMECTL_REAL_CLIS_DIR ?? path.join(os.homedir(), '.cache', 'runtimectl-test-clis', REAL_CLI_PACKAGES.join('+').replace(/[@/]/g, '_'));
  const bin = path.join(dir, 'node_modules', '.bin');
  if (!existsSync(path.join(bin, 'codex')) || !existsSync(path.join(bin, 'claude'))) {
    mkdirSync(dir, { recursive: true });
    const npm = spawnSync('npm', ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', ...REAL_CLI_PACKAGES], { encoding: 'utf8', timeout: 900_000 });
    if (npm.status !== 0) throw new Error(`installing ${REAL_CLI_PACKAGES.join(' ')} into ${dir} failed: ${(npm.stderr || npm.stdout).trim().split('\n').pop()}`);
  }
  for (const cli of ['codex', 'claude']) {
    const v = spawnSync(path.join(bin, cli), ['--version'], { encoding: 'utf8', timeout: 120_000 });
    if (v.status !== 0) throw new Error(`${cli} --version failed: ${v.stderr}`);
  }
  return { bin };
}

const found = install();
/** false when the real CLIs are there; else why the tests skip. */
export const NO_REAL_CLIS: string | false = typeof found === 'string' ? found : false;
/** The folder holding `codex` and `claude` (empty when skipped). */
export const REAL_CLI_BIN = typeof found === 'string' ? '' : found.bin;
if (NO_REAL_CLIS) process.stderr.write(`skipping real-CLI tests: ${NO_REAL_CLIS}\n`);
