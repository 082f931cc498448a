// flags: (none)
// args: ["alpha", "two words", "", "--not-a-flag=1", "-A", "ünï"]
// Deno.args: everything after the file, untouched.
console.log(Deno.args.length);
for (const [i, arg] of Deno.args.entries()) console.log(i, JSON.stringify(arg));
console.log(Array.isArray(Deno.args));
