// flags: --allow-net=127.0.0.1
// args: {url}
// Streaming fetch bodies: response.body as a ReadableStream, read in chunks; abort; statusText.
const base = Deno.args[0];
const res = await fetch(`${base}/text`);
console.log(res.status, res.statusText, res.ok, res.body instanceof ReadableStream, res.bodyUsed);
const reader = res.body!.getReader();
let text = '';
for (;;) {
  const { value, done } = await reader.read();
  if (done) break;
  text += new TextDecoder().decode(value);
}
console.log(JSON.stringify(text), res.bodyUsed);
const piped = await fetch(`${base}/json`);
console.log(await new Response(piped.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new TextEncoderStream())).json());
const cloned = await fetch(`${base}/bytes`);
const copy = cloned.clone();
console.log(new Uint8Array(await cloned.arrayBuffer()), (await copy.bytes()).length);
const controller = new AbortController();
controller.abort();
try {
  await fetch(`${base}/text`, { signal: controller.signal });
} catch (e) {
  console.log('aborted before', (e as Error).name, (e as Error).message);
}
const reason = new AbortController();
reason.abort(new Error('my reason'));
try {
  await fetch(`${base}/text`, { signal: reason.signal });
} catch (e) {
  console.log('aborted with reason', (e as Error).message);
}
const late = new AbortController();
const response = await fetch(`${base}/text`, { signal: late.signal });
late.abort();
try {
  await response.text();
} catch (e) {
  console.log('aborted body', (e as Error).name);
}
const head = await fetch(`${base}/text`, { method: 'HEAD' });
console.log('head', head.status, head.body, await head.text());
const posted = await fetch(`${base}/echo`, { method: 'POST', body: ReadableStream.from([new TextEncoder().encode('streamed '), new TextEncoder().encode('upload')]) });
console.log((await posted.json()).body);
const cancel = await fetch(`${base}/text`);
await cancel.body!.cancel();
console.log('cancelled', cancel.bodyUsed);
