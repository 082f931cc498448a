// @attack: node:child_process starting programs the grant does not name: spawn/spawnSync/exec/
// @attack: execFile/execFileSync of sh, bash, an absolute /usr/bin/env, the granted name through
// @attack: `shell: true` (which is /bin/sh), a granted program with LD_PRELOAD in its env, and a
// @attack: planted ./echo in the work folder. Only the granted echo may run, by its real path.
// @expect: contained
// @flags: --allow-run=echo --allow-env --allow-read={work} --allow-write={work}
// @env: PATH=/usr/bin:/bin
// @setup: file echo planted
import cp from 'node:child_process';
import fs from 'node:fs';
let bad = false;
const MARK = ['ESC', 'APED'].join('');
const wrong = (how) => { bad = true; console.log(`WRONG ${how}`); };
async function refused(label, f) {
  try {
    const v = await f();
    bad = true;
    console.log(`${MARK} via ${label} -> ${JSON.stringify(v)?.slice(0, 120)}`);
  } catch (e) {
    if (e?.name !== 'NotCapable' && !/^Command failed/.test(e?.message ?? '')) wrong(`${label}: ${e?.name}: ${e?.message}`);
  }
}
const spawnRefused = (label, ...args) => refused(label, () => new Promise((resolve, reject) => {
  const child = cp.spawn(...args);
  child.on('error', reject);
  child.on('spawn', () => resolve(`spawned ${child.pid}`));
}));
await spawnRefused('spawn sh', 'sh', ['-c', 'touch /tmp/rtc-escaped-68']);
await spawnRefused('spawn bash', 'bash', ['-c', 'touch /tmp/rtc-escaped-68']);
await spawnRefused('spawn /usr/bin/env', '/usr/bin/env', ['touch', '/tmp/rtc-escaped-68']);
await spawnRefused('spawn shell:true', 'echo', ['x'], { shell: true });
await spawnRefused('spawn LD_PRELOAD', 'echo', ['x'], { env: { LD_PRELOAD: '/tmp/evil.so' } });
await spawnRefused('spawn planted ./echo', './echo', []);
await refused('exec', () => new Promise((resolve, reject) => cp.exec('touch /tmp/rtc-escaped-68', (e, out) => (e ? reject(e) : resolve(out)))));
await refused('execFile sh', () => new Promise((resolve, reject) => cp.execFile('sh', ['-c', 'touch /tmp/rtc-escaped-68'], (e, out) => (e ? reject(e) : resolve(out)))));
await refused('execSync', () => cp.execSync('touch /tmp/rtc-escaped-68'));
await refused('execFileSync sh', () => cp.execFileSync('sh', ['-c', 'touch /tmp/rtc-escaped-68']));
const sync = cp.spawnSync('sh', ['-c', 'touch /tmp/rtc-escaped-68']);
if (sync.status === 0 || sync.pid) wrong(`spawnSync sh ran: ${sync.status}`);
// the granted echo runs, by its resolved path, and the planted one never does
const ok = cp.spawnSync('echo', ['granted']);
if (String(ok.stdout) !== 'granted\n') wrong(`granted echo: ${ok.status} ${ok.stdout}`);
if (!bad) console.log('CONTAINED');
