// flags: --allow-net=*.example.com
// args: (none)
// --allow-net=*.example.com grants subdomains and the bare domain, on every port; nothing else.
for (const host of ['example.com', 'api.example.com', 'a.b.example.com', 'api.example.com:8443', 'example.org', 'notexample.com', 'example.com.evil.test']) {
  const st = await Deno.permissions.query({ name: 'net', host });
  console.log(host, st.state);
}
for (const url of ['http://example.org/', 'https://evil-example.com/']) {
  try {
    await fetch(url);
    console.log('fetched', url);
  } catch (e) {
    console.log((e as Error).name, '|', (e as Error).message);
  }
}
