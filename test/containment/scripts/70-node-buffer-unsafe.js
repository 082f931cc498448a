// @attack: Buffer.allocUnsafe / allocUnsafeSlow / SlowBuffer / the pool behind small Buffers and
// @attack: a grown Buffer.concat, looking for bytes of other data (earlier buffers, the host's
// @attack: memory) in memory Node hands out uninitialised. Every byte must be zero.
// @expect: contained
// @tier: trusted
import { Buffer as B, SlowBuffer } from 'node:buffer';
let bad = false;
const MARK = ['ESC', 'APED'].join('');
// leave recognisable bytes behind first
for (let i = 0; i < 200; i++) B.from(`secret-${i}-`.repeat(100)).fill(0x41);
const checks = [
  ['allocUnsafe small', () => B.allocUnsafe(64)],
  ['allocUnsafe pool sized', () => B.allocUnsafe(4096)],
  ['allocUnsafe large', () => B.allocUnsafe(1 << 20)],
  ['allocUnsafeSlow', () => B.allocUnsafeSlow(65536)],
  ['SlowBuffer', () => SlowBuffer(1024)],
  ['global Buffer.allocUnsafe', () => Buffer.allocUnsafe(8192)],
  ['concat with totalLength', () => B.concat([B.from('ab')], 1 << 16).subarray(2)],
];
for (const [label, make] of checks) {
  const buf = make();
  const nonZero = buf.findIndex((b) => b !== 0);
  if (nonZero !== -1) {
    bad = true;
    console.log(`${MARK} via ${label}: byte ${nonZero} is ${buf[nonZero]}`);
  }
}
if (!bad) console.log('CONTAINED');
