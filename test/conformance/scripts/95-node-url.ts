// flags: (none)
// args: (none)
// node:url (WHATWG classes, file URLs, the legacy parse/format/resolve) and node:querystring.
import url, { URL as NodeURL, fileURLToPath, format, parse, pathToFileURL, resolve } from 'node:url';
import querystring from 'node:querystring';
console.log(NodeURL === URL, url.URLSearchParams === URLSearchParams);
console.log(fileURLToPath('file:///tmp/a%20b.txt'), fileURLToPath(new URL('file:///x/y')), pathToFileURL('/tmp/a b#c?.txt').href);
try {
  fileURLToPath('https://example.com/x');
} catch (e) {
  console.log((e as { code?: string }).code, (e as Error).message);
}
const u = parse('https://user:pw@Example.COM:8080/p/a/t/h?query=string&a=1#hash');
console.log(u.protocol, u.auth, u.host, u.hostname, u.port, u.pathname, u.search, u.query, u.hash, u.path, u.href);
console.log(JSON.stringify(parse('/relative/path?x=1&x=2', true).query), parse('//host/p', false, true).host, parse('mailto:a@b.c').href);
console.log(format({ protocol: 'https', hostname: 'example.com', pathname: '/a b', query: { q: 'x y', n: 1 } }));
console.log(format(new URL('https://a:b@x.org/p?q#h'), { auth: false, fragment: false }), format('http://X.org/a'));
console.log(resolve('http://a.com/b/c', '../d'), resolve('http://a.com/b/c', '/e'), resolve('/one/two/three', 'four'));
console.log(url.domainToASCII('mañana.com'), url.domainToUnicode('xn--maana-pta.com'));
console.log(JSON.stringify(url.urlToHttpOptions(new URL('https://u:p@[::1]:81/a?b'))));
console.log(querystring.stringify({ a: [1, 2], b: 'c d', e: '', f: true }), querystring.escape('a b&c'), querystring.unescape('a%20b+c'));
console.log(JSON.stringify(querystring.parse('a=1&a=2&b=c+d&e')), JSON.stringify(querystring.parse('x:1;y:2', ';', ':')));
