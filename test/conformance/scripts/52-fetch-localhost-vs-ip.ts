// flags: --allow-net=localhost
// args: {url}
// Hosts match by name, not by address: a localhost grant does not cover 127.0.0.1.
const [base] = Deno.args;
try {
  await fetch(`${base}/text`);
  console.log('fetched 127.0.0.1');
} catch (e) {
  console.log((e as Error).name, '|', (e as Error).message);
}
for (const host of ['localhost', 'localhost:1234', '127.0.0.1', '[::1]']) {
  const st = await Deno.permissions.query({ name: 'net', host });
  console.log('query', host, st.state);
}
