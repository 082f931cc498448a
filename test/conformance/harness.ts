/**
 * What the conformance test needs around each script: its header (flags, args, env, where it
 * runs), the local HTTP server fetch scripts talk to, and a way to run the real `deno run`.
 * Kept apart from the test so `show-deno.ts` can print Deno's own outputs for review.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const conformanceDir = import.meta.dirname;
export const scriptsDir = path.join(conformanceDir, 'scripts');
export const repoRoot = path.resolve(conformanceDir, '..', '..');
export const denoBin = path.join(repoRoot, 'node_modules', '.bin', 'deno');

/** A script's header comments, before placeholders (`{url}`, `{port}`) are filled in. */
export interface ScriptSpec {
  name: string;
  file: string;
  flags: string[];
  args: string[];
  /** variables added to the base environment for this script */
  env: Record<string, string>;
  /** 'conformance': run in test/conformance/; 'tmp': in a fresh temp dir (write tests) */
  cwdMode: 'conformance' | 'tmp';
  /** compare stderr byte for byte too (only where Deno's stderr is plain console output) */
  compareStderr: boolean;
  /** `test`: the file is a test module, run by `deno test` and by `sandbox test` */
  mode: 'run' | 'test';
  /** symlinks made in the tmp cwd before each run (`// links: name=target ...`; targets may use `{cwd}`) */
  links: [string, string][];
}

/** `{url}` and `{port}` of the local server; `{cwd}` the absolute directory the script runs in. */
export interface Placeholders {
  url: string;
  port: string;
  cwd: string;
}

export interface RunOutcome {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export function listScripts(): string[] {
  return fs
    .readdirSync(scriptsDir)
    .filter((f) => /^\d{2,3}-.+\.ts$/.test(f))
    .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
}

/** Header lines look like `// flags: --allow-read=./fixtures`, `// args: a b` or `// args: ["a b", ""]`. */
export function readScriptSpec(fileName: string): ScriptSpec {
  const file = path.join(scriptsDir, fileName);
  const header = new Map<string, string>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^\/\/ (flags|args|env|cwd|stderr|mode|links): ?(.*)$/.exec(line);
    if (m) header.set(m[1]!, m[2]!.trim());
    if (!line.startsWith('//')) break;
  }
  if (!header.has('flags') || !header.has('args')) {
    throw new Error(`${fileName}: the header must give "// flags:" and "// args:" lines`);
  }
  const words = (value: string | undefined): string[] =>
    !value || value === '(none)' ? [] : value.split(/\s+/).filter(Boolean);
  const argsText = header.get('args')!;
  const args = argsText.startsWith('[') ? (JSON.parse(argsText) as string[]) : words(argsText);
  const env: Record<string, string> = {};
  for (const pair of words(header.get('env'))) {
    const eq = pair.indexOf('=');
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return {
    name: fileName.replace(/\.ts$/, ''),
    file,
    flags: words(header.get('flags')),
    args,
    env,
    cwdMode: header.get('cwd') === 'tmp' ? 'tmp' : 'conformance',
    compareStderr: header.get('stderr') === 'exact',
    mode: header.get('mode') === 'test' ? 'test' : 'run',
    links: words(header.get('links')).map((pair) => {
      const eq = pair.indexOf('=');
      return [pair.slice(0, eq), pair.slice(eq + 1)] as [string, string];
    }),
  };
}

export function fill(values: readonly string[], p: Placeholders): string[] {
  return values.map((v) => v.replaceAll('{url}', p.url).replaceAll('{port}', p.port).replaceAll('{cwd}', p.cwd));
}

/**
 * The environment both runs get: enough for Deno to start and for `Deno.Command` to find
 * programs on PATH, plus the script's own variables. Nothing else from the test's process.
 */
export function baseEnv(denoDir: string, extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: process.env.HOME ?? os.homedir(),
    NO_COLOR: '1',
    DENO_NO_UPDATE_CHECK: '1',
    DENO_DIR: denoDir,
    ...extra,
  };
}

/** The server fetch scripts call; the redirects point at hosts the scripts are not granted. */
export async function startServer(): Promise<{ url: string; port: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const port = (server.address() as AddressInfo).port;
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    const send = (status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, ...extra });
      res.end(body);
    };
    switch (url.pathname) {
      case '/text':
        return send(200, 'text/plain; charset=utf-8', 'hello from the server\n', { 'x-custom': 'custom-value' });
      case '/json':
        return send(200, 'application/json', JSON.stringify({ ok: true, list: [1, 2], name: 'srv', nested: { é: 'ü' } }));
      case '/bytes':
        return send(200, 'application/octet-stream', Buffer.from([0, 1, 2, 127, 128, 255]));
      case '/status/500':
        return send(500, 'text/plain', 'server error');
      case '/redirect-same':
        return send(302, 'text/plain', '', { location: '/text' });
      case '/redirect-localhost':
        return send(302, 'text/plain', '', { location: `http://localhost:${port}/text` });
      case '/redirect-external':
        return send(302, 'text/plain', '', { location: 'http://example.com/text' });
      case '/echo': {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () =>
          send(200, 'application/json', JSON.stringify({
            method: req.method,
            search: url.search,
            xTest: req.headers['x-test'] ?? null,
            contentType: req.headers['content-type'] ?? null,
            body: Buffer.concat(chunks).toString('utf8'),
          })),
        );
        return;
      }
      default:
        return send(404, 'text/plain', 'not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = String((server.address() as AddressInfo).port);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Runs a child to completion, killing it (and failing) if it outlives `timeoutMs`. */
export function runProcess(
  command: string,
  argv: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined>; timeoutMs?: number },
): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${argv.join(' ')} did not finish within ${options.timeoutMs ?? 30_000} ms`));
    }, options.timeoutMs ?? 30_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        exitCode: code ?? (signal ? 128 : 1),
      });
    });
  });
}

/**
 * What a `deno test` report has that cannot match: durations, and the stack frames of
 * Deno's own code (`ext:...`), which the sandbox does not have.
 */
export function normalizeTestReport(text: string): string {
  return text
    .replace(/\((\d+(\.\d+)?)(ms|µs|s)\)/g, '(X)')
    .split('\n')
    .filter((line) => !/^\s+at .*\(?ext:/.test(line))
    .join('\n');
}

/** `deno test --no-prompt --no-config --no-check FLAGS FILE`. */
export function runDenoTest(file: string, flags: readonly string[], cwd: string, env: Record<string, string>): Promise<RunOutcome> {
  return runProcess(denoBin, ['test', '--no-prompt', '--no-config', '--no-check', ...flags, file], { cwd, env });
}

/** `deno run --no-prompt --no-config FLAGS FILE ARGS`: prompts never block, no deno.json is read. */
export function runDeno(
  file: string,
  flags: readonly string[],
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
): Promise<RunOutcome> {
  return runProcess(denoBin, ['run', '--no-prompt', '--no-config', ...flags, file, ...args], { cwd, env });
}

/**
 * Gives a write test its working directory. Both runs use the same path (emptied and made
 * again in between) so messages that name it are identical.
 */
export function freshDir(dir: string, links: readonly [string, string][] = []): string {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, target] of links) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.symlinkSync(target.replaceAll('{cwd}', dir), path.join(dir, name));
  }
  return dir;
}
