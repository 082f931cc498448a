// flags: --allow-read=./fixtures
// args: (none)
// Deno.cwd() is the directory the run started in, and relative paths resolve against it.
const cwd = Deno.cwd();
console.log(typeof cwd, cwd.startsWith('/'), cwd.split('/').pop());
const viaRelative = await Deno.readTextFile('fixtures/hello.txt');
const viaAbsolute = await Deno.readTextFile(`${cwd}/fixtures/hello.txt`);
console.log(viaRelative === viaAbsolute);
