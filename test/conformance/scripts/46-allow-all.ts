// flags: -A
// args: (none)
// env: CONF_A=alpha
// -A grants every kind.
console.log(JSON.stringify(await Deno.readTextFile('fixtures/secret/key.txt')));
console.log(Deno.env.get('CONF_A'));
const out = await new Deno.Command('echo', { args: ['allowed'] }).output();
console.log(new TextDecoder().decode(out.stdout).trim());
for (const name of ['read', 'write', 'env', 'run', 'net'] as const) {
  const st = await Deno.permissions.query({ name });
  console.log(name, st.state, st.partial);
}
