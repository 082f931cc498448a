// flags: --allow-env
// args: (none)
// env: CONF_A=alpha CONF_B=beta CONF_EMPTY=
// A bare --allow-env grants every variable and toObject.
console.log(Deno.env.get('CONF_A'), Deno.env.get('CONF_B'), JSON.stringify(Deno.env.get('CONF_EMPTY')));
console.log(Deno.env.get('NEVER_SET_ANYWHERE'));
const all = Deno.env.toObject();
console.log(typeof all, Array.isArray(all));
const mine = Object.keys(all).filter((k) => k.startsWith('CONF_')).sort();
for (const k of mine) console.log(k, JSON.stringify(all[k]));
console.log(typeof all.PATH);
const st = await Deno.permissions.query({ name: 'env' });
console.log(st.state);
