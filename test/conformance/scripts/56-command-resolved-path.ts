// flags: --allow-run=echo
// args: (none)
// env: PATH=/usr/bin:/bin
// A grant by name covers the program that name resolves to on PATH (/usr/bin/echo here), but
// not the same program reached by another path (/bin/echo, where /bin links to /usr/bin).
for (const cmd of ['echo', '/usr/bin/echo', '/bin/echo']) {
  try {
    const out = await new Deno.Command(cmd, { args: ['ran'] }).output();
    console.log(cmd, new TextDecoder().decode(out.stdout).trim());
  } catch (e) {
    console.log(cmd, (e as Error).name, '|', (e as Error).message);
  }
}
for (const command of ['echo', '/usr/bin/echo', '/bin/echo']) {
  const st = await Deno.permissions.query({ name: 'run', command });
  console.log('query', command, st.state);
}
