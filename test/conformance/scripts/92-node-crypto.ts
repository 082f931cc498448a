// flags: (none)
// args: (none)
// node:crypto: hashes, HMAC and key derivation (deterministic), and the shape of random output.
import crypto, { createHash, createHmac } from 'node:crypto';
console.log(createHash('sha256').update('hello').digest('hex'));
console.log(createHash('SHA1').update('hel').update('lo').digest('base64'));
console.log(createHash('md5').update(Buffer.from('hello')).digest('hex'), createHash('sha512').update('').digest('hex').slice(0, 32));
console.log(createHash('sha384').update('x', 'utf8').digest('base64url'), createHash('sha224').update('a').digest().length);
console.log(createHash('sha3-256').update('abc').digest('hex'));
const h = createHash('sha256').update('part');
const copy = h.copy();
console.log(h.update('1').digest('hex').slice(0, 16), copy.update('2').digest('hex').slice(0, 16));
console.log(createHmac('sha256', 'key').update('message').digest('hex'));
console.log(createHmac('sha1', Buffer.from('k')).update('m').digest('base64'));
console.log(crypto.pbkdf2Sync('pw', 'salt', 1000, 16, 'sha256').toString('hex'));
console.log(crypto.scryptSync('pw', 'salt', 16, { N: 1024 }).toString('hex'));
console.log(Buffer.from(crypto.hkdfSync('sha256', 'ikm', 'salt', 'info', 16)).toString('hex'));
console.log(crypto.hash('sha1', 'abc'), crypto.getHashes().includes('sha256'));
const bytes = crypto.randomBytes(16);
console.log(bytes.length, Buffer.isBuffer(bytes), /^[0-9a-f-]{36}$/.test(crypto.randomUUID()));
const n = crypto.randomInt(10, 20);
console.log(n >= 10 && n < 20, Number.isInteger(n));
console.log(crypto.timingSafeEqual(Buffer.from('ab'), Buffer.from('ab')), crypto.timingSafeEqual(Buffer.from('ab'), Buffer.from('ac')));
try {
  crypto.timingSafeEqual(Buffer.from('a'), Buffer.from('ab'));
} catch (e) {
  console.log((e as Error).name, (e as { code?: string }).code, (e as Error).message);
}
try {
  createHash('nope');
} catch (e) {
  console.log('unknown digest:', (e as Error).message);
}
const filled = crypto.randomFillSync(new Uint8Array(8));
console.log(filled.length, typeof crypto.webcrypto.getRandomValues, typeof crypto.subtle.digest);
await new Promise<void>((resolve) => crypto.randomBytes(4, (err, buf) => { console.log('callback', err, buf.length); resolve(); }));
await new Promise<void>((resolve) => crypto.pbkdf2('pw', 'salt', 1, 8, 'sha1', (err, key) => { console.log('pbkdf2 callback', err, key.toString('hex')); resolve(); }));
