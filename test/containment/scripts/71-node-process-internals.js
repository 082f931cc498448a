// @attack: node:process's doors to the engine in Node: process.binding/_linkedBinding for fs,
// @attack: spawn_sync, process_wrap, natives; process.dlopen of a shared object;
// @attack: process.getBuiltinModule; process.mainModule.require; process.env of the host via
// @attack: binding('os'); reallyExit/abort/kill of the kernel. Nothing may reach the host.
// @expect: contained
// @tier: trusted
// @flags: --allow-read={work}
import process from 'node:process';
let bad = false;
const MARK = ['ESC', 'APED'].join('');
const wrong = (how) => { bad = true; console.log(`WRONG ${how}`); };
const functionsOf = (o) => {
  try {
    return Object.getOwnPropertyNames(o ?? {}).filter((k) => typeof o[k] === 'function');
  } catch {
    return [];
  }
};
for (const name of ['fs', 'spawn_sync', 'process_wrap', 'natives', 'os', 'constants', 'buffer', 'contextify', 'uv']) {
  for (const door of ['binding', '_linkedBinding']) {
    let b;
    try {
      b = process[door](name);
    } catch {
      continue;
    }
    const fns = functionsOf(b);
    if (fns.length > 0) {
      bad = true;
      console.log(`${MARK} via process.${door}('${name}') -> ${fns.slice(0, 5).join(',')}`);
    }
  }
}
try {
  process.dlopen({ exports: {} }, '/usr/lib/x86_64-linux-gnu/libc.so.6');
  bad = true;
  console.log(`${MARK} via process.dlopen`);
} catch (e) {
  if (e?.name !== 'NotCapable') wrong(`dlopen: ${e?.name}: ${e?.message}`);
}
if (typeof process.getBuiltinModule === 'function') {
  try {
    const fs = process.getBuiltinModule('fs');
    if (fs) { bad = true; console.log(`${MARK} via getBuiltinModule`); }
  } catch {}
}
if (typeof process.mainModule?.require === 'function') { bad = true; console.log(`${MARK} via mainModule.require`); }
try {
  process.kill(1, 'SIGKILL');
  wrong('kill of pid 1 did not throw');
} catch (e) {
  if (e?.code !== 'RTC_ERR_UNSUPPORTED') wrong(`kill: ${e?.name}: ${e?.message}`);
}
if (typeof process.pid !== 'number') wrong('pid');
if (!bad) console.log('CONTAINED');
