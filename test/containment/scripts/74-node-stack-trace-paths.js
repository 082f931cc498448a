// @attack: Error.prepareStackTrace over errors thrown from inside the node: modules (fs, util,
// @attack: stream, events, child_process, crypto, buffer), reading every CallSite's this,
// @attack: function, file name and function name: no host object, and no path of the host (the
// @attack: kernel's folders, its node_modules) in what a frame says.
// @expect: contained
// @tier: trusted
import fs from 'node:fs';
import util from 'node:util';
import { Readable } from 'node:stream';
import { EventEmitter } from 'node:events';
import crypto from 'node:crypto';
import cp from 'node:child_process';
let bad = false;
const MARK = ['ESC', 'APED'].join('');
const seen = [];
Error.prepareStackTrace = (_error, frames) => {
  for (const f of frames) {
    try {
      const self = f.getThis?.();
      const fn = f.getFunction?.();
      if (self && typeof self === 'object' && typeof self.pid === 'number' && typeof self.getBuiltinModule === 'function') { bad = true; console.log(`${MARK} via getThis`); }
      if (typeof fn === 'function' && /\[native code\]/.test(String(fn)) === false && String(fn).includes('require(')) { seen.push(`fn ${String(fn).slice(0, 60)}`); }
      seen.push(`${f.getFileName?.() ?? ''} ${f.getFunctionName?.() ?? ''} ${f.getScriptNameOrSourceURL?.() ?? ''} ${f.getEvalOrigin?.() ?? ''}`);
    } catch {}
  }
  return 'stack';
};
const attempts = [
  () => fs.readFileSync('/nonexistent/x'),
  () => fs.readFileSync(42.5),
  () => util.promisify(null),
  () => new Readable({ read() { throw new Error('in read'); } }).on('error', () => {}).read(),
  () => new EventEmitter().emit('error', new Error('unhandled')),
  () => crypto.createHash('none'),
  () => cp.spawnSync(''),
  () => Buffer.alloc(2).readUInt32LE(0),
];
for (const a of attempts) {
  try {
    a();
  } catch (e) {
    void e?.stack;
  }
}
const hostPath = /(^|[\s(])\/(work|home|root|usr|opt|srv|tmp)\/|node_modules|\.\.\/\.\.\//;
// the script's own frames name its own file, which is no secret
const own = [import.meta.url, import.meta.filename];
for (const line of seen.filter((l) => !own.some((o) => o && l.includes(o)))) {
  if (hostPath.test(line)) { bad = true; console.log(`HOST PATH in a frame: ${line.slice(0, 160)}`); }
}
Error.prepareStackTrace = undefined;
if (Deno.args.includes('--show')) console.log(seen.join('\n'));
if (!bad) console.log('CONTAINED');
