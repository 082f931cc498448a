// flags: --allow-run=sh
// args: (none)
// env: CONF_A=alpha
// Without env/clearEnv, a child sees the script's environment (as under deno run), even though
// the script itself has no --allow-env.
const out = await new Deno.Command('sh', { args: ['-c', 'echo "${CONF_A:-unset}"'] }).output();
console.log(new TextDecoder().decode(out.stdout).trim());
