// flags: --allow-env --allow-run=echo,cat,false,sh,/bin/sh
// args: (none)
// node:child_process over Deno.Command: spawn with Node streams and events, the sync forms, exec through /bin/sh.
import cp, { execFileSync, execSync, spawn, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
const r = spawnSync('echo', ['a b']);
console.log('spawnSync', typeof r.pid, r.status, r.signal, JSON.stringify(String(r.stdout)), JSON.stringify(String(r.stderr)), r.output.length);
console.log('spawnSync utf8', JSON.stringify(spawnSync('echo', ['x'], { encoding: 'utf8' }).stdout));
console.log('spawnSync input', JSON.stringify(String(spawnSync('cat', [], { input: 'fed in' }).stdout)));
console.log('spawnSync status', spawnSync('false').status);
const missing = spawnSync('definitely-not-a-program-here');
console.log('spawnSync missing', missing.error?.message, (missing.error as { code?: string })?.code, missing.status);
console.log('execFileSync', JSON.stringify(execFileSync('echo', ['hi'], { encoding: 'utf8' })));
console.log('execSync', JSON.stringify(String(execSync('echo $((1+2))'))));
try {
  execFileSync('false');
} catch (e) {
  console.log('execFileSync failure', (e as Error).message, (e as { status?: number }).status);
}
try {
  execSync('exit 3', { stdio: 'pipe' });
} catch (e) {
  console.log('execSync failure', (e as Error).message, (e as { status?: number }).status);
}
const child = spawn('sh', ['-c', 'echo out; echo err >&2; exit 2']);
let out = '';
let err = '';
child.stdout.on('data', (b) => (out += b));
child.stderr.on('data', (b) => (err += b));
const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
console.log('spawn', code, signal, JSON.stringify(out), JSON.stringify(err), child.exitCode, typeof child.pid);
const piped = spawn('cat');
let echoed = '';
piped.stdout.on('data', (b) => (echoed += b));
piped.stdin.write('to stdin ');
piped.stdin.end('and end');
await new Promise((resolve) => piped.on('close', resolve));
console.log('stdin piped', JSON.stringify(echoed));
const missingChild = spawn('definitely-not-a-program-here');
const spawnError = await new Promise<Error & { code?: string; syscall?: string }>((resolve) => missingChild.on('error', resolve));
console.log('spawn missing', spawnError.message, spawnError.code, spawnError.syscall);
const { stdout } = await promisify(cp.execFile)('echo', ['promisified']);
console.log('execFile promisified', JSON.stringify(stdout));
await new Promise<void>((resolve) => cp.exec('echo via shell; exit 5', (e, so, se) => {
  console.log('exec', e?.message.split('\n')[0], (e as { code?: number } | null)?.code, JSON.stringify(so), JSON.stringify(se));
  resolve();
}));
const envChild = spawnSync('sh', ['-c', 'echo $ONLY'], { env: { ONLY: 'given', PATH: '/usr/bin:/bin' } });
console.log('env option', JSON.stringify(String(envChild.stdout)));
