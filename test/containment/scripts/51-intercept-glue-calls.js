// @attack: intercepts what the sandbox's own glue code might do with host handles: setters on
// @attack: Object.prototype and on Array.prototype indices (caught by `obj.x = v` and `push`),
// @attack: Function.prototype.call/apply/bind, Reflect.apply/construct, then exercises every op;
// @attack: each intercepted value is checked for isolated-vm handles and host objects.
// @expect: contained error
// @tier: trusted
// ---- probe helpers, inlined so the script stands alone. The marker is built at run time
// so that no error message quoting this source can contain it by accident.
const MARK = ['ESC', 'APED'].join('');
const NAME = '51';
let escapedOnce = false;
/** A host (Node) process object, or something that leads to one; null otherwise. */
function hostProcess(v, depth = 0) {
  try {
    if (v === null || v === undefined || depth > 2) return null;
    if (typeof v !== 'object' && typeof v !== 'function') return null;
    // Node's process: pid and versions.node, and it hands out Node's own modules or bindings. (Deno's
    // namespace has pid but no versions.node; the sandbox's node:process, on globalThis as in Deno
    // 2.9, has both but hands out neither: its binding() is empty and it has no getBuiltinModule.)
    if (typeof v.pid === 'number' && typeof v.versions?.node === 'string' && (typeof v.getBuiltinModule === 'function' || typeof v.mainModule?.require === 'function' || (() => { try { return typeof v.binding('fs').open === 'function'; } catch { return false; } })())) return v;
    if (typeof v.require === 'function' && typeof v.require.resolve === 'function') return v;
    if (v.mainModule && typeof v.mainModule.require === 'function') return v;
    if (v.process && v.process !== v) return hostProcess(v.process, depth + 1);
  } catch {}
  return null;
}
/** Prints the marker and tries to leave a file behind with the host's own fs. */
function escaped(how, ref) {
  escapedOnce = true;
  console.log(MARK + ' via ' + how);
  try {
    const p = hostProcess(ref) ?? ref;
    const req = typeof p.getBuiltinModule === 'function' ? (m) => p.getBuiltinModule(m) : (p.require ?? p.mainModule.require);
    req('fs').writeFileSync('/tmp/rtc-escaped-' + NAME, how + '\n');
  } catch {}
}
function check(v, how) {
  const p = hostProcess(v);
  if (p) escaped(how, p);
  return p !== null;
}
const PROBE_SOURCE = 'try { return typeof process !== "undefined" ? process : (typeof require === "function" ? { require } : null) } catch (e) { return null }';
/** Treats F as a Function constructor (of any kind) and asks it for process/require. */
function probeCtor(F, how) {
  if (typeof F !== 'function') return;
  let got;
  try { got = F(PROBE_SOURCE)(); } catch { return; }
  try {
    if (got && typeof got.next === 'function') got = got.next();
    if (got && typeof got.then === 'function') { got.then((g) => check(g && 'value' in Object(g) && 'done' in Object(g) ? g.value : g, how), () => {}); return; }
    if (got && typeof got === 'object' && 'done' in got && 'value' in got) got = got.value;
  } catch {}
  check(got, how);
}
/** Every constructor reachable from v by .constructor and the prototype chain, probed. */
function probeChain(v, how) {
  const seen = new Set();
  let cur = v;
  for (let i = 0; i < 8 && cur !== null && cur !== undefined; i++) {
    if (check(cur, how)) return;
    let ctor;
    try { ctor = cur.constructor; } catch { ctor = undefined; }
    if (typeof ctor === 'function' && !seen.has(ctor)) {
      seen.add(ctor);
      probeCtor(ctor, how + '.constructor');
      let cc;
      try { cc = ctor.constructor; } catch { cc = undefined; }
      if (typeof cc === 'function' && !seen.has(cc)) { seen.add(cc); probeCtor(cc, how + '.constructor.constructor'); }
    }
    try { cur = Object.getPrototypeOf(cur); } catch { cur = null; }
  }
}
function done() {
  // a tick for probes that answer through promises
  return new Promise((resolve) => setTimeout(resolve, 20)).then(() => { if (!escapedOnce) console.log('CONTAINED'); });
}
// ---- end of probe helpers
const savedApply = Reflect.apply;
const savedConstruct = Reflect.construct;
const savedDefine = Object.defineProperty;
const HANDLE_KEYS = ['applySync', 'applySyncPromise', 'derefInto', 'copySync', 'copyInto', 'evalSync', 'compileScriptSync'];
let inside = false;
function look(tag, values) {
  if (inside) return;
  inside = true;
  try {
    for (const v of values) {
      if (v === null || (typeof v !== 'object' && typeof v !== 'function')) continue;
      if (check(v, tag)) continue;
      for (const key of HANDLE_KEYS) {
        let f;
        try { f = v[key]; } catch {}
        if (typeof f === 'function') { escaped('isolated-vm handle through ' + tag + ' (' + key + ')', null); break; }
      }
      try { if (!(v instanceof WeakRef) && typeof v.deref === 'function') escaped('deref handle through ' + tag, null); } catch {}
    }
  } finally {
    inside = false;
  }
}
const names = ['ok', 'err', 'result', 'ref', 'reference', 'host', 'sync', 'async', 'apply', 'callback', 'fn', 'handler', 'resolve', 'reject', 'args', 'data', 'error', 'text', 'fd', 'id', 'ms', 'op', 'json', 'payload', 'bridge', 'ops', 'call', 'send', 'port'];
for (const name of names) {
  savedDefine(Object.prototype, name, {
    configurable: true,
    get() { return undefined; },
    set(v) { look('set .' + name, [v]); savedDefine(this, name, { value: v, writable: true, enumerable: true, configurable: true }); },
  });
}
for (let i = 0; i < 8; i++) {
  savedDefine(Array.prototype, String(i), {
    configurable: true,
    get() { return undefined; },
    set(v) { look('array set [' + i + ']', [v]); savedDefine(this, String(i), { value: v, writable: true, enumerable: true, configurable: true }); },
  });
}
const originalCall = Function.prototype.call;
const originalApply = Function.prototype.apply;
const originalBind = Function.prototype.bind;
Function.prototype.call = function (thisArg, ...args) { look('Function.prototype.call', [this, thisArg, ...args]); return savedApply(this, thisArg, args); };
Function.prototype.apply = function (thisArg, args) { look('Function.prototype.apply', [this, thisArg, ...(args ?? [])]); return savedApply(this, thisArg, args ?? []); };
Function.prototype.bind = function (thisArg, ...args) { look('Function.prototype.bind', [this, thisArg, ...args]); return savedApply(originalBind, this, [thisArg, ...args]); };
Reflect.apply = function (f, t, a) { look('Reflect.apply', [f, t, ...(a ?? [])]); return savedApply(f, t, a); };
Reflect.construct = function (f, a, n) { look('Reflect.construct', [f, ...(a ?? []), n]); return n === undefined ? savedConstruct(f, a) : savedConstruct(f, a, n); };
const ops = [
  () => console.log('probe line'),
  () => console.error('probe line'),
  () => Deno.env.get('HOME'),
  () => Deno.readTextFile('/etc/hostname'),
  () => Deno.stat('/'),
  () => new Deno.Command('true').output(),
  () => fetch('http://127.0.0.1:9/'),
  () => Deno.permissions.query({ name: 'read', path: '/' }),
  () => new Promise((r) => setTimeout(r, 1)),
  () => crypto.randomUUID(),
  () => crypto.getRandomValues(new Uint8Array(8)),
  () => structuredClone({ a: [1, 2] }),
  () => new TextEncoder().encode('x'),
  () => new URL('http://x/y').href,
];
for (const op of ops) {
  try { const r = op(); if (r && typeof r.then === 'function') await r.then((v) => look('result', [v]), (e) => look('rejection', [e])); else look('result', [r]); } catch (e) { look('throw', [e]); }
}
Function.prototype.call = originalCall;
Function.prototype.apply = originalApply;
Function.prototype.bind = originalBind;
Reflect.apply = savedApply;
Reflect.construct = savedConstruct;
for (const name of names) delete Object.prototype[name];
for (let i = 0; i < 8; i++) delete Array.prototype[String(i)];
await done();
