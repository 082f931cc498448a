// flags: (none)
// args: (none)
// Without --allow-run any Deno.Command is NotCapable; uncaught, it exits 1.
try {
  await new Deno.Command('echo', { args: ['x'] }).output();
} catch (e) {
  console.log((e as Error).name, '|', (e as Error).message);
}
const st = await Deno.permissions.query({ name: 'run' });
console.log('query run', st.state);
console.log('now uncaught');
await new Deno.Command('true').output();
console.log('must not print');
