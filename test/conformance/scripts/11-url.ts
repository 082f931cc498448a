// flags: (none)
// args: (none)
// URL parsing, resolution, setters and the invalid-URL error.
const u = new URL('https://user:pw@Example.COM:8443/a/b/../c?x=1&y=two#frag');
console.log(u.href);
console.log(u.protocol, u.username, u.password, u.host, u.hostname, u.port);
console.log(u.pathname, u.search, u.hash, u.origin);
console.log(new URL('../d?z', 'http://h.test/a/b/c').href);
console.log(new URL('http://h.test:80/').port === '', new URL('http://h.test:80/').href);
console.log(new URL('file:///tmp/some%20file.txt').pathname);
const edited = new URL('http://h.test/');
edited.pathname = '/new path';
edited.searchParams.set('q', 'a b&c');
edited.hash = 'h';
console.log(edited.toString());
console.log(JSON.stringify({ url: new URL('http://h.test/j') }));
try {
  new URL('not a url');
} catch (e) {
  console.log('invalid:', (e as Error).name, e instanceof TypeError);
}
console.log(URL.canParse('http://ok.test/'), URL.canParse('nope'));
