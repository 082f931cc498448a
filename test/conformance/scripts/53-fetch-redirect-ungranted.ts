// flags: --allow-net=127.0.0.1:{port}
// args: {url}
// A redirect to an ungranted host is refused with NotCapable (the granted server sends it there).
const [base] = Deno.args;
for (const path of ['/redirect-localhost', '/redirect-external']) {
  try {
    const r = await fetch(`${base}${path}`);
    console.log(path, 'followed', r.status);
  } catch (e) {
    console.log(path, (e as Error).name, '|', (e as Error).message);
  }
}
const ok = await fetch(`${base}/redirect-same`);
console.log('same host', ok.status, JSON.stringify(await ok.text()));
