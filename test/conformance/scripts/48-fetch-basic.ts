// flags: --allow-net=127.0.0.1
// args: {url}
// fetch to a granted host (host without port = every port): status, ok, headers.get, text/json/arrayBuffer.
const [base] = Deno.args;
const text = await fetch(`${base}/text`);
console.log(text.status, text.ok, text.headers.get('content-type'), text.headers.get('X-CUSTOM'), text.headers.get('x-absent'));
console.log(JSON.stringify(await text.text()));
const json = await fetch(new URL('/json', base));
console.log(json.status, JSON.stringify(await json.json()));
const bin = await fetch(`${base}/bytes`);
const buf = await bin.arrayBuffer();
console.log(buf instanceof ArrayBuffer, buf.byteLength, Array.from(new Uint8Array(buf)).join(','));
const missing = await fetch(`${base}/missing`);
console.log(missing.status, missing.ok, JSON.stringify(await missing.text()));
const failing = await fetch(`${base}/status/500`);
console.log(failing.status, failing.ok);
const redirected = await fetch(`${base}/redirect-same`);
console.log('same-host redirect', redirected.status, redirected.redirected, JSON.stringify(await redirected.text()));
