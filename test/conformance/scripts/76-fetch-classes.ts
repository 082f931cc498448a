// flags: (none)
// args: (none)
// Headers, Request, Response, Blob, File, FormData: validation, clone, bodies, Deno's messages.
const show = async (label: string, fn: () => unknown) => {
  try {
    console.log(label, 'ok', await fn());
  } catch (e) {
    console.log(label, (e as Error).name, (e as Error).message);
  }
};
await show('bad header name', () => new Headers({ 'a b': 'x' }));
await show('bad header value', () => new Headers({ a: 'x\ny' }));
await show('bad pair', () => new Headers([['a']] as unknown as [string, string][]));
await show('bad init', () => new Headers(1 as unknown as HeadersInit));
await show('get()', () => (new Headers().get as unknown as () => null)());
await show('set-cookie', () => { const h = new Headers(); h.append('Set-Cookie', 'a=1'); h.append('set-cookie', 'b=2'); h.append('X', '1'); h.append('x', '2'); return [[...h], h.getSetCookie(), h.get('set-cookie')]; });
await show('headers', () => new Headers({ b: '2', A: ' 1 ' }));
await show('status 99', () => new Response(null, { status: 99 }));
await show('status 600', () => new Response(null, { status: 600 }));
await show('status text', () => new Response(null, { statusText: 'a\nb' }));
await show('null body status', () => new Response('x', { status: 204 }));
await show('GET with body', () => new Request('http://x.test/', { body: 'a' }));
await show('bad method', () => new Request('http://x.test/', { method: 'BAD METHOD' }));
await show('forbidden method', () => new Request('http://x.test/', { method: 'TRACE' }));
await show('bad url', () => new Request('not a url'));
await show('methods', () => [new Request('http://x.test/', { method: 'post' }).method, new Request('http://x.test/', { method: 'patch' }).method]);
await show('request', () => new Request('http://x.test/a', { method: 'PUT', body: 'z', headers: { 'X-A': '1' } }));
await show('response', () => new Response('hi', { status: 201, headers: { a: '1' } }));
await show('redirect', () => [Response.redirect('http://x.test/', 301).status, Response.redirect('http://x.test/').headers.get('location')]);
await show('redirect status', () => Response.redirect('http://x.test/', 200));
await show('error', () => { const r = Response.error(); return [r.type, r.status, r.ok, r.statusText]; });
await show('immutable', () => Response.error().headers.set('a', 'b'));
await show('json', async () => { const r = Response.json({ a: 1 }, { status: 202 }); return [r.status, r.headers.get('content-type'), await r.json()]; });
const r = new Response('body text');
await show('clone', async () => [await r.clone().text(), await r.text(), r.bodyUsed]);
await show('clone used', () => r.clone());
await show('read twice', () => r.text());
await show('blob', async () => { const b = await new Response(new Blob(['q'], { type: 'a/b' })).blob(); return [b.size, b.type]; });
await show('arrayBuffer', async () => new Uint8Array(await new Response(new Uint8Array([1, 2, 3])).arrayBuffer()));
await show('bytes', async () => new Response('ab').bytes());
await show('urlencoded', async () => { const res = new Response(new URLSearchParams('x=1&y=2')); return [res.headers.get('content-type'), (await res.formData()).get('y')]; });
await show('formData round trip', async () => {
  const fd = new FormData();
  fd.append('a', '1');
  fd.append('f', new Blob(['file data'], { type: 'text/plain' }), 'n.txt');
  fd.set('a', '2');
  const req = new Request('http://x.test/', { method: 'POST', body: fd });
  const back = await req.formData();
  const f = back.get('f') as File;
  return [req.headers.get('content-type')?.startsWith('multipart/form-data; boundary='), back.get('a'), f.name, f.type, await f.text()];
});
await show('formData plain text', () => new Response('x').formData());
const blob = new Blob(['ab', new Uint8Array([99])], { type: 'Text/Plain' });
await show('blob parts', async () => [blob.size, blob.type, await blob.text(), await blob.slice(1).text(), await blob.slice(-1, 10, 'x/y').text(), blob.slice(-1, 10, 'x/y').type]);
await show('blob stream', () => new Response(blob.stream()).text());
await show('file', () => { const f = new File(['x'], 'a.txt', { lastModified: 5, type: 'text/plain' }); return [f.name, f.lastModified, f.type, f instanceof Blob, f]; });
await show('formData', () => { const fd = new FormData(); fd.append('k', 'v'); return [fd.has('k'), fd.getAll('k'), fd]; });
await show('request copy', async () => { const a = new Request('http://x.test/', { method: 'POST', body: 'abc' }); const b = new Request(a); return [a.bodyUsed, await b.text(), b.signal instanceof AbortSignal]; });
await show('request signal', () => { const c = new AbortController(); const q = new Request('http://x.test/', { signal: c.signal }); c.abort(); return q.signal.aborted; });
await show('body stream', async () => { const res = new Response('streamed'); const reader = res.body!.getReader(); const first = await reader.read(); return [first.done, new TextDecoder().decode(first.value), res.bodyUsed]; });
await show('no body', () => [new Response(null).body, new Request('http://x.test/').body]);
