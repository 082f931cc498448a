// flags: --allow-env=AWS_*
// args: (none)
// env: AWS_REGION=eu-west-1 AWS_ACCESS_KEY_ID=AKIAEXAMPLE AWS=bare CONF_A=alpha
// --allow-env=AWS_* is a suffix wildcard: AWS_REGION yes, AWS and aws_region no.
for (const name of ['AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_NOT_SET', 'AWS', 'aws_region', 'CONF_A', 'XAWS_REGION']) {
  try {
    console.log(name, JSON.stringify(Deno.env.get(name)));
  } catch (e) {
    console.log(name, (e as Error).name, '|', (e as Error).message);
  }
}
for (const variable of ['AWS_REGION', 'AWS', 'CONF_A']) {
  const st = await Deno.permissions.query({ name: 'env', variable });
  console.log('query', variable, st.state);
}
try {
  Deno.env.toObject();
} catch (e) {
  console.log('toObject', (e as Error).name, '|', (e as Error).message);
}
