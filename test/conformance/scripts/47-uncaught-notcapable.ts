// flags: --allow-read=./fixtures/granted
// args: (none)
// An uncaught NotCapable exits 1; output printed before it is kept.
console.log(await Deno.readTextFile('fixtures/granted/g.txt'));
console.log(await Deno.readTextFile('fixtures/secret/key.txt'));
console.log('must not print');
