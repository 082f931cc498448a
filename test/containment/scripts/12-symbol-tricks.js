// @attack: Symbol tricks: well-known and registered symbols (toPrimitive, hasInstance, species,
// @attack: toStringTag, iterator, nodejs.rejection, nodejs.util.promisify.custom) on values handed
// @attack: to sandbox functions, recording the `this` and arguments each hook is called with.
// @expect: contained
// @tier: trusted
// ---- probe helpers, inlined so the script stands alone. The marker is built at run time
// so that no error message quoting this source can contain it by accident.
const MARK = ['ESC', 'APED'].join('');
const NAME = '12';
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
function hooked(tag) {
  const o = {};
  o[Symbol.toPrimitive] = function (hint) { probeChain(this, tag + ' toPrimitive this'); probeChain(arguments, tag + ' toPrimitive args'); return hint === 'number' ? 1 : 'x'; };
  o[Symbol.toStringTag] = 'Hooked';
  o[Symbol.iterator] = function* () { probeChain(this, tag + ' iterator this'); yield 1; };
  o[Symbol.for('nodejs.rejection')] = function (...args) { for (const a of args) probeChain(a, tag + ' nodejs.rejection'); };
  o[Symbol.for('nodejs.util.promisify.custom')] = function (...args) { for (const a of args) probeChain(a, tag + ' promisify'); };
  o[Symbol.for('nodejs.util.inspect.custom')] = function (...args) { for (const a of args) probeChain(a, tag + ' inspect.custom'); return 'h'; };
  return o;
}
class Evil { static [Symbol.hasInstance](x) { probeChain(x, 'hasInstance'); return false; } }
const uses = [
  () => Deno.env.get(hooked('env.get')),
  () => Deno.readTextFileSync?.(hooked('readTextFileSync')),
  () => new URL(hooked('URL')),
  () => new TextEncoder().encode(hooked('encode')),
  () => setTimeout(() => {}, hooked('setTimeout ms')),
  () => crypto.getRandomValues(hooked('getRandomValues')),
  () => console.log(hooked('console.log')),
  () => console.log('%s %d %i %f %o %O', hooked('%s'), hooked('%d'), hooked('%i'), hooked('%f'), hooked('%o'), hooked('%O')),
  () => Deno.exit ? (hooked('exit') instanceof Evil) : 0,
  () => new Deno.Command(hooked('Command'), { args: hooked('args') }),
  () => Deno.permissions.query(hooked('query')),
  () => structuredClone(hooked('structuredClone')),
  () => Array.from(hooked('from')),
];
for (const use of uses) { try { const r = use(); if (r && typeof r.then === 'function') await r.then(() => {}, (e) => probeChain(e, 'rejection')); } catch (e) { probeChain(e, 'throw'); } }
// a species hook on Array: results the shim builds with map/filter go through our class
class MyArray extends Array { constructor(...a) { super(...a); probeChain(this, 'array species'); } }
Object.defineProperty(Array, Symbol.species, { get() { return MyArray; }, configurable: true });
try { for await (const e of Deno.readDir('/')) { probeChain(e, 'readDir entry'); break; } } catch (e) { probeChain(e, 'readDir error'); }
Object.defineProperty(Array, Symbol.species, { get() { return Array; }, configurable: true });
await done();
