// flags: --allow-run=echo
// args: (none)
// new Deno.Command('echo', {args}).output(): code, success, signal, stdout/stderr bytes.
const out = await new Deno.Command('echo', { args: ['hello', 'from echo', '$NOT_EXPANDED'] }).output();
console.log(out.code, out.success, out.signal);
console.log(out.stdout.constructor.name, JSON.stringify(new TextDecoder().decode(out.stdout)));
console.log(out.stderr.length);
const noArgs = await new Deno.Command('echo').output();
console.log(JSON.stringify(new TextDecoder().decode(noArgs.stdout)));
const q = await Deno.permissions.query({ name: 'run', command: 'echo' });
console.log('query echo', q.state);
