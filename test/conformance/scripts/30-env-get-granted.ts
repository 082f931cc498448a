// flags: --allow-env=CONF_A,CONF_UNSET
// args: (none)
// env: CONF_A=alpha CONF_B=beta
// Deno.env.get for listed variables (set and unset); other variables are NotCapable.
console.log(JSON.stringify(Deno.env.get('CONF_A')));
console.log(JSON.stringify(Deno.env.get('CONF_UNSET')), Deno.env.get('CONF_UNSET') === undefined);
for (const name of ['CONF_B', 'conf_a', 'CONF_A_SUFFIX', 'PATH']) {
  try {
    console.log(name, Deno.env.get(name));
  } catch (e) {
    console.log(name, (e as Error).name, e instanceof Deno.errors.NotCapable, '|', (e as Error).message);
  }
}
try {
  Deno.env.toObject();
} catch (e) {
  console.log('toObject', (e as Error).name, '|', (e as Error).message);
}
