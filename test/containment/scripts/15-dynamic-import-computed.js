// @attack: dynamic import with specifiers no bundler can see: computed 'node:fs', a data: URL
// @attack: module that reaches for process, file:// and http:// URLs, npm: and jsr:, and
// @attack: import() from code made by new Function and eval.
// @expect: contained
// @tier: trusted
// ---- probe helpers, inlined so the script stands alone. The marker is built at run time
// so that no error message quoting this source can contain it by accident.
const MARK = ['ESC', 'APED'].join('');
const NAME = '15';
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
const specs = [
  ['node', 'fs'].join(':'),
  ['f', 's'].join(''),
  ['node', 'child_process'].join(':'),
  'data:text/javascript,export default (typeof process === "object" ? process : null)',
  'file:///etc/passwd',
  'file:///' + 'proc/self/environ',
  'http://127.0.0.1:9/x.js',
  'npm:left-pad',
  'jsr:@std/fs',
];
for (const spec of specs) {
  try {
    const m = await import(spec);
    const v = m && (m.default ?? m);
    if (v && typeof v.writeFileSync === 'function') { try { v.writeFileSync('/tmp/rtc-escaped-' + NAME, spec); } catch {} escaped('import ' + spec, null); continue; }
    if (v && typeof v.execSync === 'function') { escaped('import ' + spec, null); continue; }
    check(v, 'import ' + spec);
  } catch {}
}
try { const f = new Function('s', 'return import(s)'); await f(['node', 'fs'].join(':')).then((m) => check(m.default ?? m, 'Function import'), () => {}); } catch {}
try { await eval('import(["node","fs"].join(":"))').then((m) => { if (m && (m.default ?? m).writeFileSync) escaped('eval import', null); }, () => {}); } catch {}
await done();
