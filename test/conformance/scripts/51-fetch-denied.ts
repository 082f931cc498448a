// flags: (none)
// args: {url}
// fetch without --allow-net: NotCapable with Deno's "host:port" message (default ports filled in).
const [base] = Deno.args;
for (const url of [`${base}/text`, 'http://example.com/', 'https://example.com/x', 'http://example.com:8080/']) {
  try {
    await fetch(url);
    console.log('fetched', url);
  } catch (e) {
    console.log((e as Error).name, e instanceof Deno.errors.NotCapable, '|', (e as Error).message);
  }
}
console.log('now uncaught');
await fetch(`${base}/text`);
console.log('must not print');
