// flags: --allow-net --deny-net=127.0.0.1:{port}
// args: {url}
// --deny-net=host:port wins over a bare --allow-net.
const [base] = Deno.args;
try {
  await fetch(`${base}/text`);
  console.log('fetched');
} catch (e) {
  console.log((e as Error).name, '|', (e as Error).message);
}
const st = await Deno.permissions.query({ name: 'net', host: new URL(base).host });
console.log('query denied host', st.state);
