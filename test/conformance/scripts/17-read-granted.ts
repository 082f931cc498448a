// flags: --allow-read=./fixtures
// args: (none)
// Reading granted files: readTextFile (utf-8), readFile (bytes), JSON content.
const text = await Deno.readTextFile('fixtures/hello.txt');
console.log(JSON.stringify(text));
console.log(JSON.stringify(await Deno.readTextFile('./fixtures/utf8.txt')));
const data = JSON.parse(await Deno.readTextFile('fixtures/data.json'));
console.log(data.name, data.items.length, data.nested.ok);
const bytes = await Deno.readFile('fixtures/bytes.bin');
console.log(bytes.constructor.name, bytes.length, Array.from(bytes).join(','));
const utf8Bytes = await Deno.readFile('fixtures/utf8.txt');
console.log(utf8Bytes.length, new TextDecoder().decode(utf8Bytes) === await Deno.readTextFile('fixtures/utf8.txt'));
