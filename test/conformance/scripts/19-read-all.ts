// flags: --allow-read
// args: (none)
// A bare --allow-read grants every path, relative or absolute.
const cwd = Deno.cwd();
console.log(cwd.endsWith('/conformance'));
console.log(JSON.stringify(await Deno.readTextFile(`${cwd}/fixtures/hello.txt`)));
console.log(JSON.stringify(await Deno.readTextFile('fixtures/secret/key.txt')));
console.log(JSON.stringify(await Deno.readTextFile('../conformance/fixtures/granted-sibling/s.txt')));
console.log((await Deno.stat('/')).isDirectory);
const st = await Deno.permissions.query({ name: 'read', path: '/' });
console.log(st.state, st.partial);
