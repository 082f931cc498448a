// flags: --allow-net=127.0.0.1
// args: {url}
// fetch with method, headers and a body (string and JSON); the server echoes what it received.
const [base] = Deno.args;
const r1 = await fetch(`${base}/echo`, { method: 'POST', headers: { 'x-test': 'one', 'content-type': 'text/plain' }, body: 'payload ü' });
console.log(r1.status, JSON.stringify(await r1.json()));
const r2 = await fetch(`${base}/echo`, { method: 'PUT', headers: new Headers({ 'content-type': 'application/json' }), body: JSON.stringify({ a: 1 }) });
console.log(r2.status, JSON.stringify(await r2.json()));
const r3 = await fetch(`${base}/echo?q=1`);
console.log(r3.status, JSON.stringify(await r3.json()));
