// flags: --allow-run=sh --allow-read=./fixtures
// args: (none)
// env: CONF_A=alpha CONF_B=beta
// Deno.Command options: cwd, env, clearEnv, stdin:'null', non-zero exit codes and stderr.
const dec = new TextDecoder();
async function sh(script: string, options: Omit<Deno.CommandOptions, 'args'> = {}) {
  const out = await new Deno.Command('sh', { args: ['-c', script], ...options }).output();
  return { code: out.code, success: out.success, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
console.log(JSON.stringify(await sh('ls', { cwd: 'fixtures/dir' })));
console.log(JSON.stringify(await sh('basename "$PWD"', { cwd: './fixtures/dir/sub' })));
console.log(JSON.stringify(await sh('echo "$CONF_B/$EXTRA"', { env: { EXTRA: 'extra', CONF_B: 'overridden' } })));
console.log(JSON.stringify(await sh('echo "${CONF_A:-cleared}/$ONLY"', { clearEnv: true, env: { ONLY: 'only-this' } })));
console.log(JSON.stringify(await sh('cat; echo "eof reached"', { stdin: 'null' })));
console.log(JSON.stringify(await sh('echo to-stderr >&2; exit 7')));
const silent = await new Deno.Command('sh', { args: ['-c', 'exit 0'], stdout: 'null', stderr: 'null' }).output();
console.log(silent.code, silent.success);
