// flags: (none)
// args: (none)
// URL parse errors in Deno's words, URL.canParse/parse, and Deno.inspect of URL and URLSearchParams.
for (const [input, base] of [['foo', undefined], ['http://[x', undefined], ['http://a b', undefined], ['x', 'also bad'], ['', undefined], ['http://exa mple.com', undefined]] as [string, string | undefined][]) {
  try {
    new URL(input, base);
  } catch (e) {
    console.log((e as Error).name, JSON.stringify((e as Error).message), e instanceof TypeError);
  }
}
const u = new URL('https://user:pw@example.com:8080/p/a?q=1#h');
console.log(u);
console.log(Deno.inspect(u));
console.log(Deno.inspect(new URL('http://x/')));
console.log(new URLSearchParams('a=1&b=2&a=3'), { p: new URLSearchParams() });
console.log(String(u), JSON.stringify(u), URL.canParse('x'), URL.canParse('http://x'), URL.parse('nope'), URL.parse('/p', 'http://h/')?.href);
try {
  new URLSearchParams([['a']] as unknown as string[][]);
} catch (e) {
  console.log((e as Error).name, (e as Error).message);
}
console.log(Object.prototype.toString.call(u), u.searchParams, u instanceof URL, URL.length, URLSearchParams.length);
console.log(new URL('../x?y#z', 'http://h/a/b/c').href, new URLSearchParams({ k: 'v w' }).toString());
