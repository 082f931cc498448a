// flags: --allow-env --deny-env=CONF_SECRET
// args: (none)
// env: CONF_A=alpha CONF_SECRET=s3cret
// --deny-env wins over a bare --allow-env; toObject then needs the full grant.
console.log(Deno.env.get('CONF_A'));
try {
  console.log(Deno.env.get('CONF_SECRET'));
} catch (e) {
  console.log('CONF_SECRET', (e as Error).name, '|', (e as Error).message);
}
try {
  const all = Deno.env.toObject();
  console.log('toObject ok', 'CONF_SECRET' in all, all.CONF_A);
} catch (e) {
  console.log('toObject', (e as Error).name, '|', (e as Error).message);
}
for (const variable of ['CONF_A', 'CONF_SECRET']) {
  const st = await Deno.permissions.query({ name: 'env', variable });
  console.log('query', variable, st.state);
}
const whole = await Deno.permissions.query({ name: 'env' });
console.log('query env', whole.state, whole.partial);
