// flags: --allow-read --allow-run
// args: (none)
// Deno.execPath() runs `eval` and `run` as deno does, so a script can re-invoke itself
// (two children only: each is a whole kernel start).
const dec = new TextDecoder();
const exec = Deno.execPath();
console.log(typeof exec, exec.length > 0);
const evaluated = await new Deno.Command(exec, { args: ['eval', 'console.log(6 * 7, Deno.args.join("+")); Deno.exit(3)', 'a', 'b'], stdout: 'piped' }).output();
console.log(dec.decode(evaluated.stdout).trim(), evaluated.code);
const child = await new Deno.Command(exec, { args: ['run', '--allow-read=fixtures', 'scripts/17-read-granted.ts'], stdout: 'piped', stderr: 'piped' }).output();
console.log(dec.decode(child.stdout).split('\n')[0], child.code);
