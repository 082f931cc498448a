// flags: --allow-run=echo
// args: (none)
// --allow-run=echo matches that name only: other commands and the absolute /bin/echo are NotCapable.
for (const cmd of ['ls', '/bin/echo', 'sh', 'cat']) {
  try {
    await new Deno.Command(cmd, { args: ['x'] }).output();
    console.log(cmd, 'ran');
  } catch (e) {
    console.log(cmd, (e as Error).name, e instanceof Deno.errors.NotCapable, '|', (e as Error).message);
  }
}
for (const command of ['echo', '/bin/echo', 'ls']) {
  const st = await Deno.permissions.query({ name: 'run', command });
  console.log('query', command, st.state);
}
