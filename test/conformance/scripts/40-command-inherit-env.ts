// flags: --allow-run=sh
// args: (none)
// env: CONF_A=alpha
// Without clearEnv, a child sees the script's environment (as under deno run), even though the
// script itself has no --allow-env; `env` adds to it rather than replacing it.
const dec = new TextDecoder();
const plain = await new Deno.Command('sh', { args: ['-c', 'echo "${CONF_A:-unset}"'] }).output();
console.log(dec.decode(plain.stdout).trim());
const merged = await new Deno.Command('sh', { args: ['-c', 'echo "${CONF_A:-unset}/$EXTRA"'], env: { EXTRA: 'extra' } }).output();
console.log(dec.decode(merged.stdout).trim());
