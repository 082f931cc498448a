// flags: (none)
// args: (none)
// crypto.subtle: digest, HMAC sign/verify, AES-GCM, ECDSA, PBKDF2, key export, and errors.
const enc = new TextEncoder();
const hex = (b: ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
const show = async (label: string, fn: () => unknown) => {
  try {
    console.log(label, 'ok', await fn());
  } catch (e) {
    console.log(label, (e as Error).name, e instanceof DOMException);
  }
};
for (const algorithm of ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512']) console.log(algorithm, hex(await crypto.subtle.digest(algorithm, enc.encode('abc'))));
console.log(hex(await crypto.subtle.digest({ name: 'SHA-256' }, new Uint8Array([1, 2, 3]).buffer)));
const hmac = await crypto.subtle.importKey('raw', enc.encode('secret'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
console.log(hmac, hmac instanceof CryptoKey, hmac.type, hmac.extractable, hmac.usages);
const sig = await crypto.subtle.sign('HMAC', hmac, enc.encode('message'));
console.log(hex(sig), await crypto.subtle.verify('HMAC', hmac, sig, enc.encode('message')), await crypto.subtle.verify('HMAC', hmac, sig, enc.encode('other')));
await show('export non-extractable', () => crypto.subtle.exportKey('raw', hmac));
await show('unknown digest', () => crypto.subtle.digest('SHA-999', enc.encode('x')));
await show('string data', () => crypto.subtle.digest('SHA-256', 'x' as unknown as BufferSource));
await show('wrong key', () => crypto.subtle.encrypt({ name: 'AES-GCM', iv: new Uint8Array(12) }, hmac, enc.encode('x')));
const aesRaw = new Uint8Array(32).fill(7);
const aes = await crypto.subtle.importKey('raw', aesRaw, 'AES-GCM', true, ['encrypt', 'decrypt']);
const iv = new Uint8Array(12).fill(1);
const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, aes, enc.encode('hello'));
console.log(hex(ct), new TextDecoder().decode(await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, aes, ct)));
await show('tampered', () => crypto.subtle.decrypt({ name: 'AES-GCM', iv }, aes, new Uint8Array(ct).map((b, i) => (i === 0 ? b ^ 1 : b))));
console.log((await crypto.subtle.exportKey('raw', aes)).byteLength, Object.keys(await crypto.subtle.exportKey('jwk', aes)).sort(), aes.algorithm);
const generated = await crypto.subtle.generateKey({ name: 'AES-CBC', length: 128 }, true, ['encrypt']);
console.log(generated.algorithm, (await crypto.subtle.exportKey('raw', generated)).byteLength);
const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']) as CryptoKeyPair;
const esig = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, pair.privateKey, enc.encode('m'));
console.log(pair.publicKey.type, pair.privateKey.type, pair.publicKey.algorithm, esig.byteLength, await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, pair.publicKey, esig, enc.encode('m')));
const base = await crypto.subtle.importKey('raw', enc.encode('password'), 'PBKDF2', false, ['deriveBits', 'deriveKey']);
console.log(hex(await crypto.subtle.deriveBits({ name: 'PBKDF2', salt: enc.encode('salt'), iterations: 1000, hash: 'SHA-256' }, base, 256)));
const derived = await crypto.subtle.deriveKey({ name: 'PBKDF2', salt: enc.encode('salt'), iterations: 10, hash: 'SHA-1' }, base, { name: 'HMAC', hash: 'SHA-256', length: 256 }, true, ['sign']);
console.log(derived.algorithm, hex(await crypto.subtle.exportKey('raw', derived)).length);
console.log(Object.prototype.toString.call(crypto.subtle), crypto instanceof Crypto, typeof SubtleCrypto);
await show('new CryptoKey', () => new (CryptoKey as unknown as new () => unknown)());
