// @attack: the environment through node:process without an env grant: process.env reads, the
// @attack: `in` test, listings (keys, spread, JSON, for-in, console.log of process), writes and
// @attack: deletes, os.tmpdir and os.userInfo, child_process's inherited environment. Deno's
// @attack: NotCapable everywhere; the kernel's variables never reach the script.
// @expect: contained
// @tier: trusted
// @flags: --allow-read={work}
// @env: RTC_SECRET_FOR_TEST=do-not-leak
import process from 'node:process';
import os from 'node:os';
import cp from 'node:child_process';
let bad = false;
const MARK = ['ESC', 'APED'].join('');
const wrong = (how) => { bad = true; console.log(`WRONG ${how}`); };
async function refused(label, f) {
  try {
    const v = await f();
    const text = JSON.stringify(v) ?? String(v);
    bad = true;
    console.log(`${text.includes('do-not-leak') ? MARK : 'NOT REFUSED'} via ${label} -> ${text.slice(0, 80)}`);
  } catch (e) {
    if (e?.name !== 'NotCapable') wrong(`${label}: ${e?.name}: ${e?.message}`);
  }
}
await refused('read', () => process.env.RTC_SECRET_FOR_TEST);
await refused('read missing', () => process.env.NO_SUCH_VARIABLE);
await refused('in', () => 'RTC_SECRET_FOR_TEST' in process.env);
await refused('keys', () => Object.keys(process.env));
await refused('spread', () => ({ ...process.env }));
await refused('JSON', () => JSON.stringify(process.env));
await refused('for-in', () => { const out = []; for (const k in process.env) out.push(k); return out; });
await refused('entries', () => Object.entries(process.env));
await refused('descriptor', () => Object.getOwnPropertyDescriptor(process.env, 'RTC_SECRET_FOR_TEST'));
await refused('hasOwn', () => Object.hasOwn(process.env, 'RTC_SECRET_FOR_TEST'));
await refused('write', () => { process.env.PATH = '/tmp'; return 'written'; });
await refused('delete', () => { delete process.env.RTC_SECRET_FOR_TEST; return 'deleted'; });
await refused('console.log(process.env)', () => Deno.inspect(process.env));
await refused('os.tmpdir', () => os.tmpdir());
await refused('os.userInfo', () => os.userInfo());
await refused('os.homedir', () => os.homedir());
await refused('spawnSync inherits', () => cp.spawnSync('env'));
await refused('Deno.env.toObject', () => Deno.env.toObject());
if (!bad) console.log('CONTAINED');
