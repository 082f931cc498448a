// flags: (none)
// args: (none)
// node:buffer and the global Buffer: encodings, reads and writes, comparisons, console output.
import { Buffer as B, constants, isUtf8 } from 'node:buffer';
console.log(B === Buffer, typeof constants.MAX_LENGTH, isUtf8(Buffer.from('é')), isUtf8(new Uint8Array([0xc3])));
const b = Buffer.from('héllo wörld');
console.log(b.length, b.toString(), b.toString('hex'), b.toString('base64'), b.toString('latin1').length);
console.log(Buffer.from('68656c6c6f', 'hex').toString(), Buffer.from('aGVsbG8=', 'base64').toString(), Buffer.from('aGVsbG8', 'base64url').toString());
console.log(Buffer.alloc(4, 'ab'), Buffer.alloc(3), Buffer.allocUnsafe(4).fill(7), Buffer.from([256, -1, 1.5]));
console.log(Buffer.concat([Buffer.from('a'), Buffer.from('bc')]).toString(), Buffer.byteLength('héllo'), Buffer.byteLength('aGk=', 'base64'));
console.log(Buffer.compare(Buffer.from('a'), Buffer.from('b')), Buffer.from('abc').equals(Buffer.from('abc')), Buffer.isBuffer(new Uint8Array(1)), Buffer.isEncoding('utf8'), Buffer.isEncoding('nope'));
const w = Buffer.alloc(16);
w.writeUInt32BE(0xdeadbeef, 0);
w.writeInt16LE(-2, 4);
w.writeDoubleLE(1.5, 6);
w.writeUInt8(255, 14);
console.log(w.readUInt32BE(0).toString(16), w.readInt16LE(4), w.readDoubleLE(6), w.readUInt8(14), w);
const big = Buffer.alloc(8);
big.writeBigUInt64BE(2n ** 63n + 5n);
console.log(big.readBigUInt64BE(), big.readBigInt64BE());
console.log(b.subarray(1, 3), b.slice(-5).toString(), b.indexOf('wörld'), b.includes('xyz'), b.lastIndexOf('l'));
console.log(JSON.stringify(Buffer.from('hi')), Buffer.from('abc').toJSON().data.length);
console.log([Buffer.from('x')], { buf: Buffer.from('yz') }, Buffer.from('a'.repeat(60)));
console.log(Buffer.from('ab').swap16().toString(), Buffer.from('hello').toString('utf8', 1, 3), Buffer.from('hi') instanceof Uint8Array);
try {
  Buffer.alloc(2).readUInt32LE(0);
} catch (e) {
  console.log((e as Error).name, (e as { code?: string }).code);
}
