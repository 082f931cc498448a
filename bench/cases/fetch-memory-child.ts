/**
 * Run in its own Node process by cases/fetch-memory.ts (and usable alone): this process is
 * the kernel. It starts a local HTTP server in a further child (so the server's buffers never
 * count here), runs one sandboxed script that starts COUNT concurrent fetches of SIZE bytes
 * each, and prints one JSON line: the kernel's resident memory before, its peak (VmHWM) and
 * how the script's fetches ended.
 *   argv: <count> <sizeBytes> <cacheDir> [profile]
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createScriptRunner } from '../../features/sandbox-run/runner/script-runner.ts';

const [countText, sizeText, cacheDir, profile = 'default'] = process.argv.slice(2);
const count = Number(countText);
const size = Number(sizeText);
if (!Number.isInteger(count) || !Number.isInteger(size) || !cacheDir) throw new Error('usage: fetch-memory-child.ts <count> <sizeBytes> <cacheDir> [profile]');

function vm(field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-fetch-mem-'));
const serverFile = path.join(dir, 'server.cjs');
writeFileSync(serverFile, `
const http = require('node:http');
const body = Buffer.alloc(${size}, 97);
const server = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length }); res.end(body); });
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
`);
const server = fork(serverFile, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
const port = await new Promise<number>((resolve) => server.once('message', (m) => resolve(Number(m))));
const script = path.join(dir, 'fetch-many.js');
writeFileSync(script, `
const url = Deno.args[0];
const n = Number(Deno.args[1]);
const results = await Promise.allSettled(Array.from({ length: n }, () => fetch(url).then((r) => r.arrayBuffer()).then((b) => b.byteLength)));
const ok = results.filter((r) => r.status === 'fulfilled').length;
const errors = [...new Set(results.filter((r) => r.status === 'rejected').map((r) => String(r.reason?.message ?? r.reason).slice(0, 120)))];
console.log(JSON.stringify({ ok, failed: n - ok, errors }));
`);
const runner = await createScriptRunner({ cacheDir, poolSize: 1 });
try {
  const before = vm('VmRSS');
  const started = performance.now();
  const result = await runner.run({ file: script, args: [`http://127.0.0.1:${port}/`, String(count)], permissionFlags: [`--allow-net=127.0.0.1:${port}`], cwd: dir, env: {}, profile, limits: { wallMs: 120_000, cpuMs: 120_000, memoryMb: 1024 } });
  const seconds = (performance.now() - started) / 1000;
  const peak = vm('VmHWM');
  let outcome: unknown = null;
  try {
    outcome = JSON.parse(result.stdout.trim().split('\n').pop() ?? 'null');
  } catch {
    outcome = { stdout: result.stdout.slice(0, 300) };
  }
  console.log(JSON.stringify({ count, size, profile, before, peak, seconds, exitCode: result.exitCode, error: result.error, outcome }));
} finally {
  await runner.close();
  server.kill();
  rmSync(dir, { recursive: true, force: true });
}
