// flags: (none)
// args: (none)
// crypto.getRandomValues and crypto.randomUUID: shapes only, never the random values.
const a = new Uint8Array(16);
const same = crypto.getRandomValues(a);
console.log(same === a, a.length);
const u32 = crypto.getRandomValues(new Uint32Array(4));
console.log(u32.constructor.name, u32.length);
const big = crypto.getRandomValues(new Uint8Array(65536));
console.log(big.length, big.some((x) => x !== 0));
try {
  crypto.getRandomValues(new Uint8Array(65537));
} catch (e) {
  console.log('too big:', (e as Error).name);
}
try {
  crypto.getRandomValues(new Float64Array(2) as unknown as Uint8Array);
} catch (e) {
  console.log('float array:', (e as Error).name);
}
const id = crypto.randomUUID();
console.log(typeof id, id.length, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id));
const ids = new Set(Array.from({ length: 100 }, () => crypto.randomUUID()));
console.log(ids.size);
