// flags: (none)
// args: (none)
// TextEncoder / TextDecoder (utf-8): bytes, round trip, BOM, invalid bytes, fatal mode, encodeInto.
const enc = new TextEncoder();
const bytes = enc.encode('héllo €😀');
console.log(enc.encoding, bytes.constructor.name, bytes.length, Array.from(bytes).join(','));
const dec = new TextDecoder();
console.log(dec.encoding, dec.fatal, dec.ignoreBOM);
console.log(dec.decode(bytes));
console.log(JSON.stringify(dec.decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))));
console.log(JSON.stringify(dec.decode(new Uint8Array([0x41, 0xff, 0x42]))));
console.log(JSON.stringify(new TextDecoder('utf-8').decode(bytes.buffer)));
console.log(JSON.stringify(dec.decode()));
try {
  new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xc3]));
} catch (e) {
  console.log('fatal:', (e as Error).name, e instanceof TypeError);
}
const target = new Uint8Array(4);
const r = enc.encodeInto('aé€', target);
console.log(r.read, r.written, Array.from(target).join(','));
console.log(new TextDecoder('utf8').encoding);
