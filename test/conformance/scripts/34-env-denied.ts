// flags: (none)
// args: (none)
// env: CONF_A=alpha
// Without --allow-env, get and toObject are NotCapable; an uncaught one exits 1.
try {
  Deno.env.get('CONF_A');
} catch (e) {
  console.log((e as Error).name, '|', (e as Error).message);
}
try {
  Deno.env.toObject();
} catch (e) {
  console.log((e as Error).name, '|', (e as Error).message);
}
console.log('now uncaught');
console.log(Deno.env.get('HOME'));
console.log('must not print');
