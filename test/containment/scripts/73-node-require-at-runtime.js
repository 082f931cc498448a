// @attack: Node's module system reached at run time rather than at build: a computed
// @attack: import('node:' + name) (never resolved by the build), the loader parameter the
// @attack: bundle hands its node: imports (__rtc_node) asked for node:module, vm, v8, worker_threads
// @attack: and an internal name, a global require/module/exports/__dirname, and
// @attack: process.mainModule. None may yield a module loader or a host module.
// @expect: contained
// @tier: trusted
let bad = false;
const MARK = ['ESC', 'APED'].join('');
const wrong = (how) => { bad = true; console.log(`WRONG ${how}`); };
for (const name of ['module', 'fs', 'vm', 'child_process']) {
  try {
    const m = await import('node:' + name);
    bad = true;
    console.log(`${MARK} via computed import('node:${name}') -> ${Object.keys(m).slice(0, 5)}`);
  } catch {}
}
// the loader the bundle's node: imports go through, called directly
const loader = (() => { try { return __rtc_node; } catch { return undefined; } })();
if (typeof loader === 'function') {
  for (const name of ['module', 'vm', 'v8', 'worker_threads', 'internal/process', '../../kernel/broker/broker.ts', 'rtc:host.ts']) {
    try {
      const m = loader(name);
      bad = true;
      console.log(`${MARK} via __rtc_node('${name}') -> ${typeof m}`);
    } catch (e) {
      if (e?.code !== 'RTC_ERR_UNSUPPORTED') wrong(`__rtc_node('${name}'): ${e?.name} ${e?.message}`);
    }
  }
}
for (const name of ['require', 'module', 'exports', '__dirname', '__filename']) {
  if (typeof globalThis[name] !== 'undefined') { bad = true; console.log(`${MARK} via global ${name}`); }
}
if (typeof process?.mainModule?.require === 'function') { bad = true; console.log(`${MARK} via process.mainModule`); }
if (!bad) console.log('CONTAINED');
