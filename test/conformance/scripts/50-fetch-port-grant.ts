// flags: --allow-net=127.0.0.1:{port}
// args: {url}
// --allow-net=host:port grants that port only.
const [base] = Deno.args;
const r = await fetch(`${base}/text`);
console.log(r.status, JSON.stringify(await r.text()));
try {
  await fetch('http://127.0.0.1:65001/text');
  console.log('other port fetched');
} catch (e) {
  console.log('other port', (e as Error).name, '|', (e as Error).message);
}
for (const host of ['127.0.0.1', '127.0.0.1:65001', new URL(base).host]) {
  const st = await Deno.permissions.query({ name: 'net', host });
  console.log('query', host === new URL(base).host ? 'granted host:port' : host, st.state);
}
